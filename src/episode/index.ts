/** Episode files (SPEC §8): recorder, reader, labels, index, repair. */
export * from './types.js';
export * from './channels.js';
export { StreamingMcapWriter } from '../mcap/streaming-writer.js';
export { MemoryFileWritable, type FileWritable } from '../mcap/index.js';
export { NodeFileWritable } from '../platform/file-writable.js';
export * from './recorder.js';
export * from './reader.js';
export * from './trace.js';
export * from './labels.js';
export * from './append-label.js';
export * from './episode-index.js';
export * from './episode-dir.js';
export * from './repair.js';
export * from './episode-manager.js';
