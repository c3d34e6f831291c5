/**
 * The `rosbag2` MCAP metadata record (`serialized_metadata`, bag-info version 8 as written by
 * rosbag2 in Iron and later; see the record in shared/data/.../topics_and_services.mcap).
 */
export interface Rosbag2TopicInfo {
  name: string;
  type: string;
  serializationFormat: string;
  offeredQosProfiles: string;
  typeDescriptionHash: string;
  messageCount: number;
}

export interface Rosbag2BagInfo {
  relativePath: string;
  startNs: bigint;
  durationNs: bigint;
  messageCount: number;
  topics: readonly Rosbag2TopicInfo[];
  rosDistro?: string;
}

/** A YAML double-quoted scalar (escapes as yaml-cpp writes them). */
function quoted(s: string): string {
  return JSON.stringify(s);
}

export function serializeRosbag2Metadata(info: Rosbag2BagInfo): string {
  const start = info.messageCount === 0 ? 9223372036854775807n : info.startNs;
  const lines = [
    'version: 8',
    'storage_identifier: mcap',
    'duration:',
    `  nanoseconds: ${info.durationNs}`,
    'starting_time:',
    `  nanoseconds_since_epoch: ${start}`,
    `message_count: ${info.messageCount}`,
  ];
  if (info.topics.length === 0) lines.push('topics_with_message_count:', '  []');
  else {
    lines.push('topics_with_message_count:');
    for (const t of info.topics) {
      lines.push(
        '  - topic_metadata:',
        `      name: ${t.name}`,
        `      type: ${t.type}`,
        `      serialization_format: ${t.serializationFormat}`,
        `      offered_qos_profiles: ${quoted(t.offeredQosProfiles)}`,
        `      type_description_hash: ${t.typeDescriptionHash === '' ? '""' : t.typeDescriptionHash}`,
        `    message_count: ${t.messageCount}`,
      );
    }
  }
  lines.push(
    'compression_format: ""',
    'compression_mode: ""',
    'relative_file_paths:',
    `  - ${info.relativePath}`,
    'files:',
    `  - path: ${info.relativePath}`,
    '    starting_time:',
    `      nanoseconds_since_epoch: ${start}`,
    '    duration:',
    `      nanoseconds: ${info.durationNs}`,
    `    message_count: ${info.messageCount}`,
    'custom_data: ~',
    `ros_distro: ${info.rosDistro ?? 'humble'}`,
  );
  return lines.join('\n');
}
