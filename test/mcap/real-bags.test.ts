/**
 * Every real rosbag2 MCAP file in shared/data/rosbag2-test-bags is read: topics, types, counts and
 * decoded values are checked against the bag's metadata.yaml (talker), against the `rosbag2`
 * metadata record rosbag2 itself embedded (rosbag2_cpp bags), and against values checked by hand
 * from the bags' bytes and the rosbag2 test sources that wrote them.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { scanBag, type BagMessage, type BagSummary } from '../../src/mcap/index.js';
import { fileSource } from '../../src/platform/file-source.js';
import { sharedDir } from '../support/paths.js';

const bagsDir = resolve(sharedDir, 'data/rosbag2-test-bags');

function findMcaps(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? findMcaps(p) : name.endsWith('.mcap') ? [p] : [];
  });
}

async function readAll(
  path: string,
): Promise<{ summary: BagSummary; messages: BagMessage[]; decoded: Record<string, unknown>[] }> {
  const messages: BagMessage[] = [];
  const summary = await scanBag(fileSource(path), (m) => messages.push(m));
  return { summary, messages, decoded: messages.map((m) => m.decode()) };
}

const byTopic = (s: BagSummary) =>
  Object.fromEntries(s.topics.map((t) => [t.topic, { type: t.type, count: t.messageCount }]));

describe('real rosbag2 MCAP files', () => {
  it('finds the five bags and reads each one completely, decoding every message', async () => {
    const files = findMcaps(bagsDir);
    expect(files).toHaveLength(5);
    for (const f of files) {
      const { summary, messages } = await readAll(f);
      expect(summary.end, f).toEqual({ kind: 'complete' });
      expect(summary.profile, f).toBe('ros2');
      expect(messages.length, f).toBeGreaterThan(0);
      // The Statistics record rosbag2 wrote agrees with what was read.
      expect(summary.statistics?.messageCount, f).toBe(BigInt(messages.length));
      for (const m of messages) expect(() => m.decode(), `${f} ${m.topic}`).not.toThrow();
    }
  });

  it('talker.mcap (zstd chunks) matches its metadata.yaml: topics, types, QoS, counts, times', async () => {
    const dir = join(bagsDir, 'rosbag2_py/test/resources/mcap/talker');
    // intAsBigInt: nanosecond times exceed 2^53.
    const meta = parseYaml(readFileSync(join(dir, 'metadata.yaml'), 'utf8'), {
      intAsBigInt: true,
    }).rosbag2_bagfile_information;
    const { summary, messages, decoded } = await readAll(join(dir, 'talker.mcap'));
    expect(summary.messageCount).toBe(Number(meta.message_count));
    expect(summary.startTime).toBe(BigInt(meta.starting_time.nanoseconds_since_epoch));
    expect(summary.endTime! - summary.startTime!).toBe(BigInt(meta.duration.nanoseconds));
    const topics = byTopic(summary);
    for (const entry of meta.topics_with_message_count) {
      const tm = entry.topic_metadata;
      expect(topics[tm.name], tm.name).toEqual({ type: tm.type, count: Number(entry.message_count) });
      const t = summary.topics.find((x) => x.topic === tm.name)!;
      expect(t.messageEncoding).toBe(tm.serialization_format);
      // metadata.yaml (written by Eloquent) has older QoS durations; the enums agree.
      const qos = parseYaml(tm.offered_qos_profiles)[0];
      expect(t.metadata.get('offered_qos_profiles')).toContain(`reliability: ${qos.reliability}`);
      expect(t.qos[0]).toMatchObject({
        history: qos.history,
        reliability: qos.reliability,
        durability: qos.durability,
        liveliness: qos.liveliness,
      });
    }
    const strings = messages
      .map((m, i) => [m.topic, decoded[i]] as const)
      .filter(([t]) => t === '/topic')
      .map(([, d]) => d!['data']);
    expect(strings).toEqual(Array.from({ length: 10 }, (_, i) => `Hello, world! ${i}`));
    const log = decoded[messages.findIndex((m) => m.topic === '/rosout')]!;
    expect(log).toMatchObject({ level: 20, name: 'minimal_publisher', msg: "Publishing: 'Hello, world! 0'", line: 38 });
  });

  it('topics_and_services.mcap: service-event schemas with --- decode (sum = a + b) and match rosbag2 metadata', async () => {
    const { summary, messages, decoded } = await readAll(
      join(bagsDir, 'rosbag2_cpp/test/rosbag2_cpp/bags/topics_and_services.mcap'),
    );
    const meta = summary.rosbag2Metadata as {
      message_count: bigint;
      topics_with_message_count: {
        topic_metadata: { name: string; type: string; type_description_hash: string };
        message_count: bigint;
      }[];
    };
    expect(summary.messageCount).toBe(Number(meta.message_count));
    const topics = byTopic(summary);
    for (const e of meta.topics_with_message_count) {
      expect(topics[e.topic_metadata.name], e.topic_metadata.name).toEqual({
        type: e.topic_metadata.type,
        count: Number(e.message_count),
      });
      const t = summary.topics.find((x) => x.topic === e.topic_metadata.name)!;
      expect(t.metadata.get('topic_type_hash')).toBe(e.topic_metadata.type_description_hash);
    }
    const events = messages
      .map((m, i) => [m, decoded[i]!] as const)
      .filter(([m]) => m.topic === '/add_two_ints/_service_event')
      .map(([, d]) => d);
    expect(events).toHaveLength(6);
    const requests = events.filter((e) => (e['info'] as { event_type: number }).event_type === 1);
    const responses = events.filter((e) => (e['info'] as { event_type: number }).event_type === 2);
    // Hand-checked from the payload bytes: requests (1,3), (2,3), (3,3); responses 4, 5, 6.
    expect(requests.map((e) => (e['request'] as { a: bigint; b: bigint }[])[0])).toEqual([
      { a: 1n, b: 3n },
      { a: 2n, b: 3n },
      { a: 3n, b: 3n },
    ]);
    expect(responses.map((e) => (e['response'] as { sum: bigint }[])[0]!.sum)).toEqual([4n, 5n, 6n]);
    for (const e of events) expect((e['info'] as { client_gid: ArrayLike<number> }).client_gid).toHaveLength(16);
    const firstParam = decoded[messages.findIndex((m) => m.topic === '/parameter_events')]!;
    expect(firstParam).toMatchObject({
      node: '/introspection_client',
      new_parameters: [{ name: 'use_sim_time', value: { type: 1, bool_value: false } }],
    });
  });

  it('only_topics.mcap matches its embedded rosbag2 metadata (counts, three QoS profiles)', async () => {
    const { summary } = await readAll(join(bagsDir, 'rosbag2_cpp/test/rosbag2_cpp/bags/only_topics.mcap'));
    const meta = summary.rosbag2Metadata as {
      message_count: bigint;
      topics_with_message_count: { topic_metadata: { name: string; type: string }; message_count: bigint }[];
    };
    expect(summary.messageCount).toBe(Number(meta.message_count));
    for (const e of meta.topics_with_message_count) {
      expect(byTopic(summary)[e.topic_metadata.name]).toEqual({
        type: e.topic_metadata.type,
        count: Number(e.message_count),
      });
    }
    const pe = summary.topics.find((t) => t.topic === '/parameter_events')!;
    expect(pe.qos).toHaveLength(2);
    expect(pe.qos[0]).toMatchObject({
      history: 3,
      depth: 0,
      reliability: 1,
      durability: 2,
      deadline: { sec: 9223372036, nsec: 854775807 },
    });
  });

  it('cdr_test_0.mcap: BasicTypes and Arrays values as rosbag2_tests published them', async () => {
    const { summary, messages, decoded } = await readAll(
      join(bagsDir, 'rosbag2_tests/resources/mcap/cdr_test/cdr_test_0.mcap'),
    );
    expect(byTopic(summary)).toEqual({
      '/test_topic': { type: 'test_msgs/msg/BasicTypes', count: 3 },
      '/array_topic': { type: 'test_msgs/msg/Arrays', count: 4 },
    });
    const basic = decoded.filter((_, i) => messages[i]!.topic === '/test_topic');
    expect(basic.map((b) => b['int32_value'])).toEqual([123, 123, 123]);
    const arrays = decoded.filter((_, i) => messages[i]!.topic === '/array_topic');
    for (const a of arrays) {
      expect(Array.from(a['bool_values'] as boolean[])).toEqual([true, false, true]);
      expect(a['string_values']).toEqual(['Complex Hello1', 'Complex Hello2', 'Complex Hello3']);
    }
    expect(summary.topics[0]!.qos[0]).toMatchObject({ history: 3, depth: 3, reliability: 1, durability: 1 });
  });

  it('test_bag_for_seek_0.mcap: five messages at 1.0…1.4 s with int32_value 1…5 and empty QoS', async () => {
    const { summary, messages, decoded } = await readAll(
      join(bagsDir, 'rosbag2_transport/test/resources/mcap/test_bag_for_seek/test_bag_for_seek_0.mcap'),
    );
    expect(messages.map((m) => m.logTime)).toEqual([1000000000n, 1100000000n, 1200000000n, 1300000000n, 1400000000n]);
    expect(decoded.map((d) => d['int32_value'])).toEqual([1, 2, 3, 4, 5]);
    expect(summary.topics[0]).toMatchObject({ topic: 'topic1', type: 'test_msgs/BasicTypes', qos: [] });
  });
});
