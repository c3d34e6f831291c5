import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRos2Codec,
  normalizeSchemaText,
  parseQosProfiles,
  scanBag,
  serializeQosProfiles,
  type QosProfile,
} from '../../src/mcap/index.js';
import { bagFiles } from '../../src/platform/bag-files.js';
import { fileSource } from '../../src/platform/file-source.js';
import { sharedDir } from '../support/paths.js';

describe('QoS profiles in rosbag2 layout', () => {
  it('re-serializes every real bag channel QoS text byte for byte', async () => {
    const dir = resolve(sharedDir, 'data/rosbag2-test-bags/rosbag2_cpp/test/rosbag2_cpp/bags');
    const s = await scanBag(fileSource(join(dir, 'topics_and_services.mcap')));
    expect(s.topics.length).toBe(5);
    for (const t of s.topics) {
      const text = t.metadata.get('offered_qos_profiles')!;
      expect(serializeQosProfiles(parseQosProfiles(text)), t.topic).toBe(text);
    }
  });

  it('round-trips arbitrary profiles', () => {
    const int = fc.integer({ min: 0, max: 5 });
    const dur = fc.record({
      sec: fc.integer({ min: 0, max: 2 ** 40 }),
      nsec: fc.integer({ min: 0, max: 999_999_999 }),
    });
    const profile: fc.Arbitrary<QosProfile> = fc.record({
      history: int,
      depth: fc.integer({ min: 0, max: 1000 }),
      reliability: int,
      durability: int,
      deadline: dur,
      lifespan: dur,
      liveliness: int,
      liveliness_lease_duration: dur,
      avoid_ros_namespace_conventions: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(profile, { minLength: 1, maxLength: 3 }), (ps) => {
        expect(parseQosProfiles(serializeQosProfiles(ps))).toEqual(ps);
      }),
    );
  });

  it('names the profile and field of a bad value', () => {
    expect(() => parseQosProfiles('- history: keep_last\n')).toThrow(
      "offered_qos_profiles[0]: 'history' must be an integer",
    );
    expect(() => parseQosProfiles('history: 1')).toThrow('expected a YAML list');
  });
});

describe('schema texts with --- separators', () => {
  it('services: request/response picked by name, events wrapped in ServiceEventInfo', () => {
    const srv = 'int64 a\nint64 b\n---\nint64 sum\n';
    expect(normalizeSchemaText('example_interfaces/srv/AddTwoInts_Response', srv).trim()).toBe('int64 sum');
    expect(normalizeSchemaText('example_interfaces/srv/AddTwoInts_Request', srv).trim()).toBe('int64 a\nint64 b');
    const codec = createRos2Codec('example_interfaces/srv/AddTwoInts_Event', srv);
    const event = {
      info: { event_type: 0, stamp: { sec: 1, nanosec: 2 }, client_gid: new Array(16).fill(7), sequence_number: 9n },
      request: [{ a: 40n, b: 2n }],
      response: [],
    };
    expect(codec.decode(codec.encode(event))).toMatchObject({
      info: { sequence_number: 9n },
      request: [{ a: 40n, b: 2n }],
      response: [],
    });
  });

  it('actions: goal, result and feedback sections', () => {
    const action = 'float64 width\n---\nbool success\nstring error\n---\nfloat64 current_width\n';
    const fb = createRos2Codec('franka_msgs/action/Grasp_Feedback', action);
    expect(fb.decode(fb.encode({ current_width: 0.04 }))).toEqual({ current_width: 0.04 });
    const res = createRos2Codec('franka_msgs/action/Grasp_Result', action);
    expect(res.decode(res.encode({ success: true, error: 'none' }))).toEqual({ success: true, error: 'none' });
  });

  it('a text that does not parse is refused naming the schema', () => {
    expect(() => createRos2Codec('pkg/msg/Bad', 'int64 a b c d\n')).toThrow(/schema 'pkg\/msg\/Bad'/);
  });
});

describe('bag files from a path', () => {
  const bags = resolve(sharedDir, 'data/rosbag2-test-bags');
  it('a bag directory with metadata.yaml lists its relative_file_paths; a file is itself', async () => {
    expect(await bagFiles(join(bags, 'rosbag2_py/test/resources/mcap/talker'))).toEqual([
      join(bags, 'rosbag2_py/test/resources/mcap/talker/talker.mcap'),
    ]);
    const f = join(bags, 'rosbag2_tests/resources/mcap/cdr_test/cdr_test_0.mcap');
    expect(await bagFiles(f)).toEqual([f]);
  });
  it('without metadata.yaml the .mcap files in name order; an empty folder is refused with its path', async () => {
    const dir = join(bags, 'rosbag2_cpp/test/rosbag2_cpp/bags');
    expect((await bagFiles(dir)).map((p) => p.split('/').pop())).toEqual([
      'only_topics.mcap',
      'topics_and_services.mcap',
    ]);
    await expect(bagFiles(join(bags, 'rosbag2_cpp/test'))).rejects.toThrow(
      /rosbag2_cpp\/test: no metadata.yaml and no .mcap files/,
    );
  });
});
