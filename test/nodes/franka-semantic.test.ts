/**
 * The semantic gate on the Franka node (issue 18), on the fake ROS graph: the judge is asked when
 * the node starts with the newest frame of the ROS 2 camera topic (sensor_msgs/Image → PNG),
 * refusals answer proposed trajectories 'held' (code semantic) so nothing reaches the controller,
 * and the parameters are checked.
 */
import { describe, expect, it } from 'vitest';
import { COMPRESSED_IMAGE_TYPE, IMAGE_TYPE, type RosImage } from '../../drivers/camera/ros-image.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_SENSOR_DATA } from '../../drivers/ros2/interface.js';
import { toStamp } from '../../src/mcap/messages.js';
import { semanticFromParams } from '../../src/cli/commands/ros-node.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { buildFrankaNode } from '../../src/nodes/build-franka-node.js';
import { parseFrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import type { JudgeRequest, SemanticJudge } from '../../src/semantic/index.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { frankaTestConfig } from './support/franka-config.js';
import { FR3_READY as READY, frankaWorld, linearTrajectory, publishStates } from './support/franka-world.js';
const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();

function setup(task: string, judge: SemanticJudge) {
  const clock = new ManualClock(100);
  const timers = new ManualTimers(clock);
  const graph = new FakeRosGraph(clock, timers);
  const config = frankaTestConfig({
    task,
    semantic: {
      options: { judge: 'lexicon' },
      camera: { topic: '/scene_camera/image_raw', type: 'image', maxWidth: 4, maxAge: 1 },
      taskTopic: '~/task',
    },
  });
  const sem = semanticFromParams(config, spec);
  if (!sem.ok || !sem.value) throw new Error('semantic params');
  const parts = buildFrankaNode(graph, config, spec, {
    semantic: { ...sem.value, judge: { ...sem.value.judge!, judge } },
  });
  const w = frankaWorld(graph, config);
  const { node: world, proposer, toController, results } = w;
  const camera = world.createPublisher<RosImage>(IMAGE_TYPE, '/scene_camera/image_raw', QOS_SENSOR_DATA);
  const tick = (ms: number) => publishStates(w, timers, ms);
  /** A chunk turning joint 1 by 0.05 rad from the ready pose, in 20 points 50 ms apart. */
  const propose = (id: string) =>
    proposer.publish(
      linearTrajectory(
        id,
        clock.now(),
        READY,
        READY.map((q0, j) => (j === 0 ? q0 + 0.05 : q0)),
        { steps: 20, dt: 0.05 },
      ),
    );
  return { parts, camera, tick, propose, toController, results, clock };
}

const rgb = (clock: ManualClock): RosImage => ({
  header: { stamp: toStamp(clock.now()), frame_id: 'scene_camera' },
  height: 2,
  width: 8,
  encoding: 'rgb8',
  is_bigendian: 0,
  step: 24,
  data: new Uint8Array(48).fill(200),
});

describe('Franka node with the semantic gate', () => {
  it('the judge sees the camera topic frame; a refusal holds every proposed trajectory; an allow forwards it', async () => {
    const seen: JudgeRequest[] = [];
    const refuser: SemanticJudge = {
      name: 'test-judge',
      judge: (r) => (
        seen.push(r),
        Promise.resolve({ ok: true, verdict: { decision: 'refuse', reason: 'no', latency: 0.01, judge: 'test-judge' } })
      ),
    };
    const s = setup('sim-twin-knife-into-crib', refuser);
    s.tick(50); // discovery, first states
    s.camera.publish(rgb(s.clock));
    s.parts.semantic!.begin(s.parts.now());
    await s.parts.semantic!.pending;
    expect(seen[0]).toMatchObject({
      instruction: "Put the kitchen knife in the baby's crib.",
      frames: [{ mime: 'image/png', width: 4, height: 1, source: 'ros2:/scene_camera/image_raw' }],
    });
    s.propose('p1');
    s.tick(10);
    expect(s.results.at(-1)).toMatchObject({
      verdict: 'held',
      code: 'semantic',
      reason: 'judge test-judge refused: no',
    });
    expect(s.toController).toEqual([]);

    const allower: SemanticJudge = {
      name: 'ok-judge',
      judge: () =>
        Promise.resolve({ ok: true, verdict: { decision: 'allow', reason: 'fine', latency: 0.01, judge: 'ok-judge' } }),
    };
    const a = setup('sim-twin-toy-into-toybox', allower);
    a.tick(50);
    a.parts.semantic!.begin(a.parts.now());
    await a.parts.semantic!.pending;
    a.propose('p1');
    a.tick(10);
    expect(['executed', 'filtered']).toContain(a.results.at(-1)?.verdict);
    expect(a.toController.length).toBe(1);
  });

  it('without a verdict yet (fail-closed) the trajectory is held; the camera topic missing is recorded, the judge still asked', async () => {
    let release!: () => void;
    let framesSeen = -1;
    const slow: SemanticJudge = {
      name: 'slow',
      judge: (r) =>
        new Promise(
          (res) => (
            (framesSeen = r.frames.length),
            (release = () =>
              res({
                ok: true,
                verdict: { decision: 'allow', reason: `${r.frames.length} frames`, latency: 1, judge: 'slow' },
              }))
          ),
        ),
    };
    const s = setup('sim-twin-toy-into-toybox', slow);
    s.tick(50);
    s.parts.semantic!.begin(s.parts.now());
    await new Promise((r) => setImmediate(r));
    s.propose('p1');
    s.tick(10);
    expect(s.results.at(-1)).toMatchObject({ verdict: 'held', reason: 'no judge verdict yet (fail-closed)' });
    release();
    await s.parts.semantic!.pending;
    expect(s.parts.semantic!.beforeChunk(s.parts.now())).toBeUndefined(); // passes now
    expect(framesSeen).toBe(0); // no frame on the camera topic: asked without an image
  });

  it('parameters: semantic_* without semantic_judge, a bad camera_type, and the compressed type', () => {
    const yaml = (extra: string) =>
      `armguard:\n  ros__parameters:\n    robot_id: fr3\n    platform: fr3\n    task: sim-twin-toy-into-toybox\n${extra}`;
    const bad = parseFrankaNodeConfig(yaml('    semantic_instruction: "x"\n'), 'p.yaml');
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : bad.errors.map((e) => e.message).join('\n')).toContain('need semantic_judge');
    const badType = parseFrankaNodeConfig(
      yaml('    semantic_judge: lexicon\n    camera_topic: /cam\n    camera_type: rgbd\n'),
      'p.yaml',
    );
    expect(badType.ok ? '' : badType.errors.map((e) => e.message).join('\n')).toContain(
      "expected image or compressed, got 'rgbd'",
    );
    const ok = parseFrankaNodeConfig(
      yaml(
        '    semantic_judge: lexicon\n    semantic_judge_refresh: 5\n    camera_topic: /wrist/image/compressed\n    camera_type: compressed\n',
      ),
      'p.yaml',
    );
    expect(ok.ok && ok.config.semantic).toEqual({
      options: { judge: 'lexicon', 'judge-refresh': '5' },
      camera: { topic: '/wrist/image/compressed', type: 'compressed', maxWidth: 320, maxAge: 1 },
      taskTopic: '~/task',
    });
    expect(COMPRESSED_IMAGE_TYPE).toBe('sensor_msgs/msg/CompressedImage');
  });
});
