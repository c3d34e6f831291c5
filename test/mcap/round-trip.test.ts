/**
 * Round trip: armguard writes a bag of FrankaRobotState / JointState / PoseStamped and reads it back
 * identically. The file is also checked against what rosbag2's MCAP storage plugin
 * (rosbag2_storage_mcap, mcap_storage.cpp) and rosbag2_cpp's SequentialReader require to open and
 * play a bag — derived from the plugin source and the real bags in shared/data:
 *  1. Header profile 'ros2'.
 *  2. Every channel has a schema (the plugin throws "Could not find schema for topic" otherwise);
 *     schema encoding 'ros2msg', schema name 'pkg/msg/Type' (used as the topic type for
 *     type-support lookup), and the text carries every dependency once after a line of 80 '=' and
 *     'MSG: pkg/Type', as rosbag2 writes it.
 *  3. Every channel's message encoding is 'cdr': the plugin maps it to serialization_format and
 *     SequentialReader refuses bags whose topics differ in serialization format.
 *  4. Channel metadata 'offered_qos_profiles' is a YAML list with integer rmw enums (parsed by
 *     rosbag2_transport for QoS adaptation), and 'topic_type_hash' is present (Iron+; '' = unknown).
 *  5. A Statistics record exists (get_metadata() dereferences statistics().value()) and its
 *     per-channel counts are right; the summary has chunk indexes with message indexes, which
 *     log-time-ordered reading needs.
 *  6. A 'rosbag2' metadata record with serialized_metadata (bag info version 8) naming the topics.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader, type IReadable } from '@mcap/core';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createRos2Codec, fullDefinition, offeredQos, scanBag, type BagMessage } from '../../src/mcap/index.js';
import { writeBagFile } from '../../src/platform/bag-writer.js';
import {
  FRANKA_ERROR_FIELD_COUNT,
  frankaRobotState,
  jointState,
  plain,
  poseStamped,
} from './support/franka-fixtures.js';

const t0 = 1_700_000_000_000_000_000n;
const STATE = '/franka_robot_state_broadcaster/robot_state';
const JOINTS = '/joint_states';
const POSE = '/vrpn_mocap/bystander/pose';

function bytesReadable(bytes: Uint8Array): IReadable {
  return {
    size: async () => BigInt(bytes.byteLength),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
}

async function writeSample(path: string): Promise<Map<string, unknown[]>> {
  const written = new Map<string, unknown[]>([
    [STATE, []],
    [JOINTS, []],
    [POSE, []],
  ]);
  await writeBagFile(
    path,
    async (w) => {
      await w.addTopic({ topic: STATE, type: 'franka_msgs/msg/FrankaRobotState', qos: [offeredQos('reliable')] });
      await w.addTopic({ topic: JOINTS, type: 'sensor_msgs/msg/JointState', qos: [offeredQos('reliable')] });
      await w.addTopic({ topic: POSE, type: 'geometry_msgs/PoseStamped', qos: [offeredQos('best_effort')] });
      for (let k = 0; k < 200; k++) {
        const ns = t0 + BigInt(k) * 1_000_000n;
        const s = frankaRobotState(ns, k, k === 150);
        await w.write(STATE, ns, s);
        written.get(STATE)!.push(s);
        if (k % 33 === 0) {
          const j = jointState(ns, k);
          await w.write(JOINTS, ns, j);
          written.get(JOINTS)!.push(j);
        }
        if (k % 10 === 0) {
          const p = poseStamped(ns, k);
          await w.write(POSE, ns, p);
          written.get(POSE)!.push(p);
        }
      }
    },
    { chunkSize: 64 * 1024 },
  );
  return written;
}

describe('rosbag2 round trip', () => {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-bag-'));
  const path = join(dir, 'franka_0.mcap');

  it('reads back every message identically, in order', async () => {
    const written = await writeSample(path);
    const read = new Map<string, unknown[]>();
    const summary = await scanBag([readFileSync(path)], (m: BagMessage) => {
      if (!read.has(m.topic)) read.set(m.topic, []);
      read.get(m.topic)!.push(plain(m.decode()));
    });
    expect(summary.end).toEqual({ kind: 'complete' });
    for (const [topic, msgs] of written) expect(read.get(topic), topic).toEqual(msgs);
    expect(read.get(STATE)![150]).toMatchObject({ robot_mode: 4, current_errors: { joint_reflex: true } });
  });

  it('passes the checks rosbag2 MCAP storage and SequentialReader make', async () => {
    const bytes = new Uint8Array(readFileSync(path));
    const reader = await McapIndexedReader.Initialize({ readable: bytesReadable(bytes) });
    // 1
    expect(reader.header.profile).toBe('ros2');
    // 2, 3, 4
    const channels = [...reader.channelsById.values()];
    expect(channels.map((c) => c.topic).sort()).toEqual([JOINTS, POSE, STATE].sort());
    for (const c of channels) {
      const schema = reader.schemasById.get(c.schemaId);
      expect(schema, c.topic).toBeDefined();
      expect(schema!.encoding).toBe('ros2msg');
      expect(schema!.name).toMatch(/^[a-z_]+\/msg\/[A-Za-z]+$/);
      expect(c.messageEncoding).toBe('cdr');
      const qos = parseYaml(c.metadata.get('offered_qos_profiles')!);
      expect(Array.isArray(qos)).toBe(true);
      for (const key of ['history', 'depth', 'reliability', 'durability', 'liveliness'])
        expect(Number.isInteger(qos[0][key]), key).toBe(true);
      expect(qos[0].reliability).toBe(c.topic === POSE ? 2 : 1);
      expect(c.metadata.has('topic_type_hash')).toBe(true);
    }
    const stateSchema = [...reader.schemasById.values()].find((s) => s.name === 'franka_msgs/msg/FrankaRobotState')!;
    const text = new TextDecoder().decode(stateSchema.data);
    const blocks = text
      .split(`${'='.repeat(80)}\nMSG: `)
      .slice(1)
      .map((b) => b.split('\n')[0]);
    expect(blocks.sort()).toEqual([
      'builtin_interfaces/Time',
      'franka_msgs/CollisionIndicators',
      'franka_msgs/Elbow',
      'franka_msgs/Errors',
      'geometry_msgs/Accel',
      'geometry_msgs/AccelStamped',
      'geometry_msgs/Inertia',
      'geometry_msgs/InertiaStamped',
      'geometry_msgs/Point',
      'geometry_msgs/Pose',
      'geometry_msgs/PoseStamped',
      'geometry_msgs/Quaternion',
      'geometry_msgs/Twist',
      'geometry_msgs/TwistStamped',
      'geometry_msgs/Vector3',
      'geometry_msgs/Wrench',
      'geometry_msgs/WrenchStamped',
      'sensor_msgs/JointState',
      'std_msgs/Header',
    ]);
    // 5
    const stats = reader.statistics!;
    expect(stats.messageCount).toBe(200n + 7n + 20n);
    const countOf = (topic: string) => stats.channelMessageCounts.get(channels.find((c) => c.topic === topic)!.id);
    expect([countOf(STATE), countOf(JOINTS), countOf(POSE)]).toEqual([200n, 7n, 20n]);
    expect(reader.chunkIndexes.length).toBeGreaterThan(1);
    for (const ci of reader.chunkIndexes) expect(ci.messageIndexLength).toBeGreaterThan(0n);
    let n = 0;
    let last = 0n;
    for await (const m of reader.readMessages()) {
      expect(m.logTime >= last).toBe(true);
      last = m.logTime;
      n++;
    }
    expect(n).toBe(227);
    // 6
    const md = reader.metadataIndexes.filter((m) => m.name === 'rosbag2');
    expect(md).toHaveLength(1);
    const summary = await scanBag([bytes]);
    const info = summary.rosbag2Metadata as {
      version: bigint;
      message_count: bigint;
      relative_file_paths: string[];
      topics_with_message_count: {
        topic_metadata: { name: string; type: string; serialization_format: string };
        message_count: bigint;
      }[];
    };
    expect(info.version).toBe(8n);
    expect(info.message_count).toBe(227n);
    expect(info.relative_file_paths).toEqual(['franka_0.mcap']);
    expect(
      info.topics_with_message_count.map((t) => [
        t.topic_metadata.name,
        t.topic_metadata.type,
        t.topic_metadata.serialization_format,
        t.message_count,
      ]),
    ).toEqual([
      [STATE, 'franka_msgs/msg/FrankaRobotState', 'cdr', 200n],
      [JOINTS, 'sensor_msgs/msg/JointState', 'cdr', 7n],
      [POSE, 'geometry_msgs/msg/PoseStamped', 'cdr', 20n],
    ]);
  });

  it('the Franka Errors definition has the 36 humble fields and FrankaRobotState decodes its constants', () => {
    expect(FRANKA_ERROR_FIELD_COUNT).toBe(36);
    const codec = createRos2Codec(
      'franka_msgs/msg/FrankaRobotState',
      fullDefinition('franka_msgs/msg/FrankaRobotState'),
    );
    const errorsDef = codec.definitions.find((d) => d.name === 'franka_msgs/Errors')!;
    expect(errorsDef.definitions.filter((f) => !f.isConstant)).toHaveLength(36);
    const root = codec.definitions[0]!;
    expect(root.definitions.filter((f) => f.isConstant).map((f) => [f.name, f.value])).toContainEqual([
      'ROBOT_MODE_REFLEX',
      4,
    ]);
  });

  it('a definition with an unknown dependency is refused with its name', () => {
    expect(() => fullDefinition('franka_msgs/msg/Nope')).toThrow(/no message definition for franka_msgs\/msg\/Nope/);
    expect(() => fullDefinition('x/msg/A', { 'x/msg/A': 'B b\n' })).toThrow(/x\/msg\/B \(used by x\/msg\/A\)/);
  });
});
