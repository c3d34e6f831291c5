/**
 * The fragile-obstacle pilot's scripted "VLA" (seeds/001 Fig. A.8): pick the cup, lift it to the
 * carry height, carry it in a straight line to above the box — straight through the bottle, which
 * it does not know about — lower it, release, retreat. Every segment is a straight Cartesian line
 * with minimum-jerk timing, solved by IK every control tick (warm-started at the previous tick),
 * so the nominal motion is smooth. Emitted as 30 Hz, H = 50 joint-target chunks. Like a VLA, each
 * chunk is conditioned on the present joint state: it starts there and blends back onto the plan
 * from that tick on within {@link RETURN_STEPS} steps (minimum-jerk), so a chunk never jumps.
 */
import type { JointChunk } from '../../src/ports/index.js';
import type { DlsIk } from './ik.js';
import { graspOffset, PlanError, topDownFrame } from './plan.js';
import { CHUNK_HORIZON, type PlanContext } from './policies.js';
import type { SceneSpec, Vec3 } from './scenes/types.js';

export const FRAGILE_POLICY = 'carry_through_bottle';

interface Segment {
  readonly to: Vec3;
  readonly gripper: number;
  readonly duration: number;
}

const HOVER = 0.07;
/** Steps over which a chunk returns from the present state onto the plan. */
export const RETURN_STEPS = 20;

function minimumJerk(s: number): number {
  return s * s * s * (10 - 15 * s + 6 * s * s);
}

/** Rows (arm joints…, gripper) at the control period, starting at the home pose. */
export function fragileCarryPlan(
  scene: SceneSpec,
  ik: DlsIk,
  ctx: PlanContext,
  carryHeight: number,
  /** Duration of the carry from above the cup to above the box (s). */
  carrySeconds = 2.2,
): Float64Array[] {
  const p = ctx.targetPos;
  const g = scene.gripper;
  const offset = graspOffset(scene, p, ctx.targetYaw);
  const box = scene.box.center;
  const release: Vec3 = [box[0], box[1], scene.box.floorTop + scene.targetHalfHeight + 0.004];
  const segments: Segment[] = [
    { to: [p[0], p[1], p[2] + HOVER], gripper: g.open, duration: 1.2 },
    { to: p, gripper: g.open, duration: 0.8 },
    { to: p, gripper: g.closed, duration: 0.5 },
    { to: [p[0], p[1], carryHeight], gripper: g.closed, duration: 0.7 },
    { to: [box[0], box[1], carryHeight], gripper: g.closed, duration: carrySeconds },
    { to: release, gripper: g.closed, duration: 0.8 },
    { to: release, gripper: g.open, duration: 0.4 },
    { to: [box[0], box[1], release[2] + HOVER], gripper: g.open, duration: 0.6 },
  ];
  const nArm = scene.armJoints.length;
  const home = Float64Array.from(scene.home.slice(0, nArm));
  const q = Float64Array.from(home);
  const rows: Float64Array[] = [];
  // From home to above the cup in joint space (the wrist turns to the grasp frame on the way),
  // then straight Cartesian lines.
  const first = segments.shift()!;
  const r0 = ik.solve(topDownFrame(scene, first.to, offset), q);
  if (r0.positionError > 0.005)
    throw new PlanError(
      `above the cup (${first.to.map((x) => x.toFixed(3)).join(', ')}) out of reach (error ${(r0.positionError * 1000).toFixed(1)} mm)`,
    );
  const approachTicks = Math.max(1, Math.round(first.duration / scene.controlDt));
  for (let t = 1; t <= approachTicks; t++) {
    const s = minimumJerk(t / approachTicks);
    const row = new Float64Array(nArm + 1);
    for (let j = 0; j < nArm; j++) row[j] = home[j]! + (q[j]! - home[j]!) * s;
    row[nArm] = first.gripper;
    rows.push(row);
  }
  let from: Vec3 = first.to;
  let grip = first.gripper;
  for (const [k, seg] of segments.entries()) {
    const ticks = Math.max(1, Math.round(seg.duration / scene.controlDt));
    for (let t = 1; t <= ticks; t++) {
      const s = minimumJerk(t / ticks);
      const pos: Vec3 = [
        from[0] + (seg.to[0] - from[0]) * s,
        from[1] + (seg.to[1] - from[1]) * s,
        from[2] + (seg.to[2] - from[2]) * s,
      ];
      const r = ik.solve(topDownFrame(scene, pos, offset), q, 100);
      if (r.positionError > 0.005) {
        throw new PlanError(
          `segment ${k + 1}: TCP (${pos.map((x) => x.toFixed(3)).join(', ')}) out of reach (error ${(r.positionError * 1000).toFixed(1)} mm)`,
        );
      }
      const row = new Float64Array(nArm + 1);
      row.set(q);
      row[nArm] = grip + (seg.gripper - grip) * (t / ticks);
      rows.push(row);
    }
    from = seg.to;
    grip = seg.gripper;
  }
  return rows;
}

/** Hands the plan out chunk by chunk; past its end the last row repeats (the policy waits). */
export class FragileCarryPolicy {
  private chunkCount = 0;

  constructor(
    readonly rows: readonly Float64Array[],
    readonly dt: number,
  ) {
    if (rows.length === 0) throw new PlanError('empty plan');
  }

  /** Ticks of the episode: the plan plus one chunk to finish a detour, in whole chunks. */
  get ticks(): number {
    return (Math.ceil(this.rows.length / CHUNK_HORIZON) + 1) * CHUNK_HORIZON;
  }

  get joints(): number {
    return this.rows[0]!.length;
  }

  /** The nominal row at tick k. */
  row(k: number): Float64Array {
    return this.rows[Math.min(k, this.rows.length - 1)]!;
  }

  /** `present`: the arm joints' present positions (the gripper column follows the plan). */
  nextChunk(now: number, present: ArrayLike<number>): JointChunk {
    const n = this.joints;
    const targets = new Float64Array(CHUNK_HORIZON * n);
    const start = this.chunkCount * CHUNK_HORIZON;
    const anchor = this.row(start);
    for (let k = 0; k < CHUNK_HORIZON; k++) {
      const row = this.row(start + k);
      const w = 1 - minimumJerk(Math.min(1, (k + 1) / RETURN_STEPS));
      for (let j = 0; j < n; j++)
        targets[k * n + j] = row[j]! + (j < n - 1 ? ((present[j] ?? anchor[j]!) - anchor[j]!) * w : 0);
    }
    const id = `${FRAGILE_POLICY}#${this.chunkCount}`;
    this.chunkCount++;
    return { id, stamp: now, horizon: CHUNK_HORIZON, joints: n, dt: this.dt, targets };
  }
}
