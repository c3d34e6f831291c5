/**
 * MCAP and rosbag2 as a pure library: framing and tolerant scanning, CDR codecs, ROS 2 message
 * types and definitions, QoS and metadata records, reading and writing. No ROS runtime, no clock,
 * no file system: bytes come in as a ByteSource and go out through a FileWritable.
 */
export * from './bag-files.js';
export * from './codec.js';
export * from './file-writable.js';
export * from './mcap-scan.js';
export * from './memory-file-writable.js';
export * from './messages.js';
export * from './msg-definitions.js';
export * from './qos.js';
export * from './reader.js';
export * from './rosbag2-metadata.js';
export * from './streaming-writer.js';
export * from './topics.js';
export * from './writer.js';
