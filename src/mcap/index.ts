/**
 * MCAP and rosbag2 as a pure library: framing and tolerant scanning, CDR codecs, ROS 2 message
 * types and definitions, QoS and metadata records, reading and writing. No ROS runtime, no clock,
 * no file system: bytes come in as a ByteSource and go out through a FileWritable.
 */
export { filesFromRosbag2Metadata, mcapSplitsInOrder } from './bag-files.js';
export { Ros2CodecCache, createRos2Codec, normalizeSchemaText, type Ros2Codec } from './codec.js';
export { mcapWritable, type FileWritable } from './file-writable.js';
export {
  MAX_CHUNK_BYTES,
  MAX_RECORD_BYTES,
  TolerantMcapScanner,
  defaultDecompressHandlers,
  describeScanEnd,
  describeSkipped,
  lostInSkipped,
  type ScanEnd,
  type SkippedRegion,
} from './mcap-scan.js';
export { MemoryFileWritable } from './memory-file-writable.js';
export {
  DIAGNOSTIC_LEVEL,
  RosTimeBase,
  stampNs,
  stampSeconds,
  toStamp,
  type DiagnosticArray,
  type DiagnosticStatus,
  type Duration,
  type Header,
  type JointState,
  type JointTrajectory,
  type JointTrajectoryPoint,
  type KeyValue,
  type Point,
  type Pose,
  type PoseStamped,
  type Quaternion,
  type SetBoolRequest,
  type TFMessage,
  type Time,
  type Transform,
  type TransformStamped,
  type TriggerResponse,
  type Vector3,
  type Wrench,
  type WrenchStamped,
} from './messages.js';
export {
  MSG_DEFINITIONS,
  canonicalTypeName,
  fullDefinition,
  referencedTypes,
  shortTypeName,
} from './msg-definitions.js';
export {
  INFINITE_DURATION,
  QosDurability,
  QosHistory,
  QosLiveliness,
  QosReliability,
  offeredQos,
  parseQosProfiles,
  serializeQosProfiles,
  type QosDuration,
  type QosProfile,
} from './qos.js';
export { scanBag, type BagMessage, type BagSummary, type BagTopic, type ByteSource } from './reader.js';
export { serializeRosbag2Metadata, type Rosbag2BagInfo, type Rosbag2TopicInfo } from './rosbag2-metadata.js';
export { StreamingMcapWriter } from './streaming-writer.js';
export { Ros2Topics, type McapSink, type Ros2TopicSpec } from './topics.js';
export { Rosbag2Writer, type Rosbag2WriterOptions } from './writer.js';
