import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chunkToTrajectory, trajectoryToChunk } from '../../../drivers/ros2/trajectory.js';
import type { JointTrajectory } from '../../../src/mcap/messages.js';

const names = ['j1', 'j2', 'j3'];

describe('JointChunk ↔ JointTrajectory', () => {
  it('round-trips random chunks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0.001, max: 0.2, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (H, dt, stamp) => {
          const targets = Float64Array.from({ length: H * 3 }, (_, i) => Math.sin(i));
          const traj = chunkToTrajectory({ id: 'c', stamp, horizon: H, joints: 3, dt, targets }, names, 'c');
          const back = trajectoryToChunk(traj, names);
          expect(back.ok).toBe(true);
          if (!back.ok) return;
          expect(back.chunk.horizon).toBe(H);
          expect(back.chunk.dt).toBeCloseTo(dt, 6);
          expect(back.chunk.id).toBe('c');
          expect(Array.from(back.chunk.targets)).toEqual(Array.from(targets));
        },
      ),
    );
  });

  const none = new Float64Array(0);
  it('reorders joints by name', () => {
    const traj: JointTrajectory = {
      header: { stamp: { sec: 1, nanosec: 0 }, frame_id: 'x' },
      joint_names: ['j3', 'j1', 'j2'],
      points: [
        {
          positions: Float64Array.from([3, 1, 2]),
          velocities: none,
          accelerations: none,
          effort: none,
          time_from_start: { sec: 0, nanosec: 5e7 },
        },
      ],
    };
    const r = trajectoryToChunk(traj, names);
    expect(r.ok && Array.from(r.chunk.targets)).toEqual([1, 2, 3]);
  });

  // rclnodejs delivers float64[] as Float64Array (enableTypedArray, its default): the real graph
  // rejected every chunk with "points[0].positions must have 7 values" while this accepted arrays only.
  it('accepts positions as rclnodejs delivers them (Float64Array) and as plain arrays', () => {
    const typed = trajectoryToChunk(
      {
        header: { stamp: { sec: 1, nanosec: 0 }, frame_id: 'typed' },
        joint_names: [...names],
        points: [
          {
            positions: Float64Array.from([0.1, 0.2, 0.3]),
            velocities: none,
            accelerations: none,
            effort: none,
            time_from_start: { sec: 0, nanosec: 1e8 },
          },
        ],
      },
      names,
    );
    expect(typed.ok && Array.from(typed.chunk.targets)).toEqual([0.1, 0.2, 0.3]);
    const plain = trajectoryToChunk(
      {
        header: { stamp: { sec: 1, nanosec: 0 }, frame_id: 'plain' },
        joint_names: [...names],
        points: [
          {
            positions: [0.1, 0.2, 0.3],
            velocities: [],
            accelerations: [],
            effort: [],
            time_from_start: { sec: 0, nanosec: 1e8 },
          },
        ],
      } as unknown as JointTrajectory,
      names,
    );
    expect(plain.ok && Array.from(plain.chunk.targets)).toEqual([0.1, 0.2, 0.3]);
    const text = trajectoryToChunk(
      {
        header: { stamp: { sec: 1, nanosec: 0 }, frame_id: 's' },
        joint_names: [...names],
        points: [{ positions: 'abc', time_from_start: { sec: 0, nanosec: 1e8 } }],
      } as unknown as JointTrajectory,
      names,
    );
    expect(text).toEqual({ ok: false, reason: 'points[0].positions must have 3 values' });
  });

  const base = (): JointTrajectory => ({
    header: { stamp: { sec: 1, nanosec: 0 }, frame_id: 'x' },
    joint_names: [...names],
    points: [0, 1].map((k) => ({
      positions: new Float64Array(3),
      velocities: none,
      accelerations: none,
      effort: none,
      time_from_start: { sec: 0, nanosec: (k + 1) * 1e8 },
    })),
  });
  it.each([
    ['a missing joint', (t: JointTrajectory) => void (t.joint_names = ['j1', 'j2', 'jx']), /joint 'j3' missing/],
    ['no points', (t: JointTrajectory) => void (t.points = []), /no points/],
    [
      'a short point',
      (t: JointTrajectory) => void (t.points[1]!.positions = new Float64Array(2)),
      /points\[1\]\.positions must have 3/,
    ],
    ['a NaN target', (t: JointTrajectory) => void (t.points[0]!.positions[2] = NaN), /non-finite value for 'j3'/],
    [
      'times that do not increase',
      (t: JointTrajectory) => void (t.points[1]!.time_from_start = { sec: 0, nanosec: 1e8 }),
      /must increase/,
    ],
    [
      'a non-uniform step',
      (t: JointTrajectory) => t.points.push({ ...t.points[1]!, time_from_start: { sec: 0, nanosec: 5e8 } }),
      /uniform step/,
    ],
  ])('rejects %s with a reason', (_name, mutate, reason) => {
    const t = base();
    mutate(t);
    const r = trajectoryToChunk(t, names);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});

describe('a trajectory carrying the gripper fingers beside the arm joints', () => {
  const fingers = ['f1', 'f2'];
  const none = new Float64Array(0);
  const traj = (jointNames: string[], rows: number[][]): JointTrajectory => ({
    header: { stamp: { sec: 1, nanosec: 0 }, frame_id: 'g' },
    joint_names: jointNames,
    points: rows.map((positions, k) => ({
      positions: Float64Array.from(positions),
      velocities: none,
      accelerations: none,
      effort: none,
      time_from_start: { sec: 0, nanosec: (k + 1) * 5e7 },
    })),
  });

  it('the finger positions become the commanded width (their sum; twice one alone), never chunk columns', () => {
    const both = trajectoryToChunk(
      traj(
        ['f2', 'j1', 'j2', 'f1', 'j3'],
        [
          [0.04, 1, 2, 0.03, 3],
          [0, 4, 5, 0.01, 6],
        ],
      ),
      names,
      undefined,
      fingers,
    );
    expect(both.ok).toBe(true);
    if (!both.ok) return;
    expect(both.chunk.joints).toBe(3);
    expect(Array.from(both.chunk.targets)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Array.from(both.chunk.gripperWidth!)).toEqual([0.07, 0.01]);
    const one = trajectoryToChunk(traj(['j1', 'j2', 'j3', 'f1'], [[1, 2, 3, 0.025]]), names, undefined, fingers);
    expect(one.ok && Array.from(one.chunk.gripperWidth!)).toEqual([0.05]);
    const without = trajectoryToChunk(traj(['j1', 'j2', 'j3'], [[1, 2, 3]]), names, undefined, fingers);
    expect(without.ok && without.chunk.gripperWidth).toBeUndefined();
  });

  it('property: in any name order, with none, one or both fingers, the arm targets are the arm columns and the width the fingers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.subarray(fingers),
        fc.func(fc.double({ min: 0, max: 1, noNaN: true })),
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 5 * 8, maxLength: 5 * 8 }),
        (H, present, shuffleKey, values) => {
          const columns = [...names, ...present];
          const order = [...columns].sort((a, b) => shuffleKey(a) - shuffleKey(b) || a.localeCompare(b));
          const rows = Array.from({ length: H }, (_, k) => order.map((c) => values[k * 5 + columns.indexOf(c)]!));
          const r = trajectoryToChunk(traj(order, rows), names, undefined, fingers);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          for (let k = 0; k < H; k++) {
            expect(Array.from(r.chunk.targets.subarray(k * 3, k * 3 + 3))).toEqual(
              names.map((_, j) => values[k * 5 + j]!),
            );
            if (present.length === 0) continue;
            const sum = present.reduce((acc, f) => acc + values[k * 5 + columns.indexOf(f)]!, 0);
            expect(r.chunk.gripperWidth![k]).toBeCloseTo(present.length === 1 ? 2 * sum : sum, 12);
          }
          if (present.length === 0) expect(r.chunk.gripperWidth).toBeUndefined();
        },
      ),
    );
  });

  it('an unknown extra joint or a non-finite finger position is refused, naming it', () => {
    const extra = trajectoryToChunk(traj(['j1', 'j2', 'j3', 'wrist_cam'], [[1, 2, 3, 0]]), names, undefined, fingers);
    expect(extra).toMatchObject({ ok: false, reason: 'expected 3 joints (and optionally f1, f2), got 4' });
    const nan = trajectoryToChunk(traj(['j1', 'j2', 'j3', 'f1'], [[1, 2, 3, NaN]]), names, undefined, fingers);
    expect(nan).toMatchObject({ ok: false, reason: "points[0].positions has a non-finite value for 'f1'" });
    // without finger joints configured, the fingers are extra joints as before
    expect(trajectoryToChunk(traj(['j1', 'j2', 'j3', 'f1'], [[1, 2, 3, 0]]), names).ok).toBe(false);
  });
});
