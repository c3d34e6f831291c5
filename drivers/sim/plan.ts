/**
 * Scripted motion plans: Cartesian or joint waypoints → joint-space trajectory at the control rate
 * (IK at each waypoint, minimum-jerk interpolation between them), cut into VLA-like chunks.
 */
import type { DlsIk, TcpFrame } from './ik.js';
import type { SceneSpec, Vec3 } from './scenes/types.js';

export type Waypoint =
  | {
      readonly kind: 'pose';
      readonly frame: TcpFrame;
      readonly gripper: number;
      readonly duration: number;
      /** Added to the IK solution (rad per arm joint), e.g. a wrist tilt. */
      readonly jointOffset?: readonly number[];
    }
  | { readonly kind: 'joints'; readonly q: readonly number[]; readonly gripper: number; readonly duration: number };

export class PlanError extends Error {}

function panAngle(scene: SceneSpec, pos: Vec3): number {
  return Math.atan2(pos[1] - scene.panAxisXY[1], pos[0] - scene.panAxisXY[0]);
}

/**
 * Finger-line offset (rad, within ±45°) from the arm's lateral direction that closes the fingers
 * across the faces of a square object of yaw `objectYaw` at `pos`. Keep it for the whole carry:
 * the held object turns with the arm.
 */
export function graspOffset(scene: SceneSpec, pos: Vec3, objectYaw: number): number {
  const quarter = Math.PI / 2;
  let delta = (objectYaw - panAngle(scene, pos)) % quarter;
  if (delta > quarter / 2) delta -= quarter;
  if (delta < -quarter / 2) delta += quarter;
  return delta;
}

/** Near-top-down TCP frame at `pos` with the finger line turned by `offset` from lateral. */
export function topDownFrame(scene: SceneSpec, pos: Vec3, offset = 0): TcpFrame {
  const phi = panAngle(scene, pos);
  const a = phi + offset;
  // The approach leans outward by the scene's approach tilt; fingers close horizontally, so a
  // grasp never rotates an upright object, and holding the tilt constant keeps it upright.
  const b = scene.approachTilt;
  const approach: Vec3 = [Math.sin(b) * Math.cos(phi), Math.sin(b) * Math.sin(phi), -Math.cos(b)];
  const f0: Vec3 = [-Math.sin(a), Math.cos(a), 0];
  const dot = f0[0] * approach[0] + f0[1] * approach[1];
  const f1: Vec3 = [f0[0] - dot * approach[0], f0[1] - dot * approach[1], -dot * approach[2]];
  const norm = Math.hypot(...f1);
  return { pos, approach, fingers: [f1[0] / norm, f1[1] / norm, f1[2] / norm] };
}

function minimumJerk(s: number): number {
  return s * s * s * (10 - 15 * s + 6 * s * s);
}

/**
 * Build the trajectory: rows of (arm joints…, gripper) at the scene's control period, starting at
 * the home pose. Throws PlanError when a waypoint is out of reach (position error > 5 mm).
 */
export function buildTrajectory(scene: SceneSpec, ik: DlsIk, waypoints: readonly Waypoint[]): Float64Array[] {
  const nArm = scene.armJoints.length;
  const rows: Float64Array[] = [];
  let prev = Float64Array.from(scene.home);
  const seed = Float64Array.from(scene.home.slice(0, nArm));
  for (const [k, wp] of waypoints.entries()) {
    const end = new Float64Array(nArm + 1);
    if (wp.kind === 'pose') {
      const res = ik.solve(wp.frame, seed);
      if (res.positionError > 0.005) {
        throw new PlanError(
          `waypoint ${k}: TCP target (${wp.frame.pos.map((x) => x.toFixed(3)).join(', ')}) out of reach (error ${(res.positionError * 1000).toFixed(1)} mm)`,
        );
      }
      for (let i = 0; i < nArm; i++) end[i] = (seed[i] ?? 0) + (wp.jointOffset?.[i] ?? 0);
    } else {
      for (let i = 0; i < nArm; i++) end[i] = wp.q[i] ?? 0;
      seed.set(end.subarray(0, nArm));
    }
    end[nArm] = wp.gripper;
    const ticks = Math.max(1, Math.round(wp.duration / scene.controlDt));
    for (let t = 1; t <= ticks; t++) {
      const s = minimumJerk(t / ticks);
      const g = t / ticks;
      const row = new Float64Array(nArm + 1);
      for (let i = 0; i < nArm; i++) row[i] = (prev[i] ?? 0) + ((end[i] ?? 0) - (prev[i] ?? 0)) * s;
      row[nArm] = (prev[nArm] ?? 0) + ((end[nArm] ?? 0) - (prev[nArm] ?? 0)) * g;
      rows.push(row);
    }
    prev = end;
  }
  return rows;
}
