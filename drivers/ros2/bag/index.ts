export * from './codec.js';
export * from './mcap-scan.js';
export * from './msg-definitions.js';
export * from './qos.js';
export * from './reader.js';
export * from './rosbag2-metadata.js';
export * from './topics.js';
export * from './writer.js';
