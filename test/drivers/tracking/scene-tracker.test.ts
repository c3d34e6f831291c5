import { describe, expect, it } from 'vitest';
import { SignalFrame, Validity, signalIndex } from '../../../src/schema/signals.js';
import { SceneTracker } from '../../../drivers/tracking/scene-tracker.js';
import { applyRigidBodies, applyTf, subscribeTracking } from '../../../drivers/tracking/ros-adapters.js';
import { FakeRosGraph } from '../../../drivers/ros2/fake-ros-graph.js';
import { QOS_SENSOR_DATA } from '../../../drivers/ros2/interface.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import type { PoseStamped } from '../../../src/mcap/messages.js';

const I = { disp: signalIndex('non_target_disp_max')! };
const upright = { x: 0, y: 0, z: 0, w: 1 };

describe('SceneTracker', () => {
  it('bystander displacement is the max distance from each body’s first pose', () => {
    const tr = new SceneTracker({ bystanders: ['cup', 'can'], source: 'mocap' });
    const f = new SignalFrame();
    tr.observe('cup', { x: 0, y: 0, z: 0 }, upright, 0);
    tr.writeSignals(f);
    expect(f.validity[I.disp]).toBe(Validity.Missing);
    tr.observe('can', { x: 1, y: 1, z: 0 }, upright, 0.01);
    tr.observe('cup', { x: 0.003, y: 0.004, z: 0 }, upright, 0.02);
    tr.observe('can', { x: 1, y: 1.002, z: 0 }, upright, 0.03);
    tr.writeSignals(f);
    expect(f.get('non_target_disp_max')).toBeCloseTo(0.005, 12);
    expect(f.stamps[I.disp]).toBeCloseTo(0.02, 12);
  });

  it('a tracked target gives tilt in degrees and height from its resting pose', () => {
    const tr = new SceneTracker({ bystanders: [], target: 'jello', source: 'apriltag' });
    const f = new SignalFrame();
    tr.observe('jello', { x: 0, y: 0, z: 0.8 }, upright, 0);
    const h = Math.PI / 8; // 45° about y
    tr.observe('jello', { x: 0, y: 0, z: 0.9 }, { x: 0, y: Math.sin(h), z: 0, w: Math.cos(h) }, 0.1);
    tr.writeSignals(f);
    expect(f.get('target_obj_tilt_world_deg')).toBeCloseTo(45, 9);
    expect(f.get('obj_above_table')).toBeCloseTo(0.1, 12);
  });

  it('non-finite poses are ignored and resetEpisode re-anchors', () => {
    const tr = new SceneTracker({ bystanders: ['cup'], source: 'mocap' });
    const f = new SignalFrame();
    tr.observe('cup', { x: 0, y: 0, z: 0 }, upright, 0);
    tr.observe('cup', { x: NaN, y: 0, z: 0 }, upright, 1);
    tr.writeSignals(f);
    expect(f.get('non_target_disp_max')).toBe(0);
    tr.observe('cup', { x: 0.5, y: 0, z: 0 }, upright, 2);
    tr.resetEpisode();
    tr.observe('cup', { x: 0.6, y: 0, z: 0 }, upright, 3);
    tr.writeSignals(f);
    expect(f.get('non_target_disp_max')).toBeCloseTo(0, 12);
  });

  it('mocap4r2 rigid bodies and AprilTag transforms feed named bodies', () => {
    const tr = new SceneTracker({ bystanders: ['cup', 'box'], source: 'mocap' });
    const stamp = { sec: 1, nanosec: 0 };
    const pose = (x: number) => ({ position: { x, y: 0, z: 0 }, orientation: upright });
    applyRigidBodies(tr, {
      header: { stamp, frame_id: 'world' },
      frame_number: 1,
      rigidbodies: [{ rigid_body_name: 'cup', pose: pose(0) }],
    });
    applyTf(
      tr,
      {
        transforms: [
          {
            header: { stamp, frame_id: 'cam' },
            child_frame_id: 'tag36h11:7',
            transform: { translation: { x: 2, y: 0, z: 0 }, rotation: upright },
          },
        ],
      },
      { 'tag36h11:7': 'box' },
    );
    applyRigidBodies(tr, {
      header: { stamp: { sec: 2, nanosec: 0 }, frame_id: 'world' },
      frame_number: 2,
      rigidbodies: [{ rigid_body_name: 'cup', pose: pose(0.01) }],
    });
    const f = new SignalFrame();
    tr.writeSignals(f);
    expect(f.get('non_target_disp_max')).toBeCloseTo(0.01, 12);
  });

  it('vrpn_mocap poses arrive over a best-effort subscription', () => {
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    const g = new FakeRosGraph(clock, timers);
    const tr = new SceneTracker({ bystanders: ['cup'], source: 'mocap' });
    subscribeTracking(g.createNode('armguard'), tr, { kind: 'vrpn', trackers: { Cup1: 'cup' } });
    const pub = g
      .createNode('vrpn')
      .createPublisher<PoseStamped>('geometry_msgs/msg/PoseStamped', '/vrpn_mocap/Cup1/pose', QOS_SENSOR_DATA);
    timers.advance(0.1); // discovery (the fake graph matches endpoints after a delay, as a real one does)
    pub.publish({
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: 'world' },
      pose: { position: { x: 0, y: 0, z: 0 }, orientation: upright },
    });
    pub.publish({
      header: { stamp: { sec: 0, nanosec: 1e7 }, frame_id: 'world' },
      pose: { position: { x: 0, y: 0.02, z: 0 }, orientation: upright },
    });
    const f = new SignalFrame();
    tr.writeSignals(f);
    expect(f.get('non_target_disp_max')).toBeCloseTo(0.02, 12);
    expect(g.qosMismatches).toEqual([]);
  });
});
