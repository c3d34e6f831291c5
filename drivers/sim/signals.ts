/**
 * The simulator's signal extraction, as seeds/000 Tables 24 and 32 define it:
 * role-level peak contact forces, bystander displacement from t = 0, held-object world body-z
 * drift, target height relative to its lift baseline, finger–object contact, peak |τ| over arm
 * joints, and the arm's self-collision clearance (MuJoCo geom distances, world.ts).
 */
import { signalIndex, type SignalFrame, type SignalName } from '../../src/schema/signals.js';
import { boxMuller, mulberry32 } from '../../src/util/rng.js';
import { ALL_SIM_SIGNALS } from './scenes/tabletop.js';
import type { SimWorld } from './world.js';

/**
 * Simulated external tracking of the bystanders (design §2: non_target_disp_max comes from external
 * tracking on hardware): positions seen `latencyTicks` control ticks late, with Gaussian noise of
 * `positionNoise` m (std, per axis), seeded. The sample is stamped with the time it was taken.
 */
export interface TrackingModel {
  readonly positionNoise: number;
  readonly latencyTicks: number;
  readonly seed: number;
}

export const SIM_TRACKING_SOURCE_ID = 'sim.tracking';

export const SIM_SOURCE_ID = 'sim';

function idx(name: SignalName): number {
  const i = signalIndex(name);
  if (i === undefined) throw new Error(`signal schema lacks '${name}'`);
  return i;
}

const I = {
  af: idx('arm_furniture_contact_force'),
  tf: idx('target_furniture_contact_force'),
  max: idx('contact_force_max'),
  disp: idx('non_target_disp_max'),
  tilt: idx('target_obj_tilt_world_deg'),
  above: idx('obj_above_table'),
  grip: idx('gripper_contact'),
  torque: idx('max_joint_torque'),
  self: idx('self_collision_clearance'),
  eeSpeed: idx('ee_speed'),
  eeAcc: idx('ee_acc'),
  eeJerk: idx('ee_jerk'),
  tgtSpeed: idx('target_obj_speed'),
  release: idx('release_speed'),
  noFurn: idx('arm_no_furniture_contact'),
} as const;

/** Rolling-mean window for the end-effector diagnostics (seeds/000 App. C.3: 5 steps). */
const SMOOTH = 5;
/** arm_no_furniture_contact threshold (N). */
const NO_CONTACT_FORCE = 0.5;

/** World body-z axis of a unit quaternion (w, x, y, z). */
export function bodyZ(q: ArrayLike<number>, out: Float64Array): void {
  const w = q[0] ?? 1;
  const x = q[1] ?? 0;
  const y = q[2] ?? 0;
  const z = q[3] ?? 0;
  out[0] = 2 * (x * z + w * y);
  out[1] = 2 * (y * z - w * x);
  out[2] = 1 - 2 * (x * x + y * y);
}

export class SimSignals {
  private readonly bz0 = new Float64Array(3);
  private readonly bz = new Float64Array(3);
  private readonly quat = new Float64Array(4);
  private readonly pos = new Float64Array(3);
  private readonly bystander0: Float64Array;
  private liftBaseline = 0;
  private readonly declared: Uint8Array;

  private readonly history: Float64Array;
  private readonly historyTime: Float64Array;
  private historyCount = 0;
  private lastTrackedTime = NaN;
  private gauss: () => number = () => 0;
  private readonly trackedPos = new Float64Array(3);
  /** Last SMOOTH raw TCP positions and the last 4 smoothed ones (ring buffers, xyz interleaved). */
  private readonly eeRaw = new Float64Array(3 * SMOOTH);
  private readonly eeSmooth = new Float64Array(3 * 4);
  private eeCount = 0;
  private lastDiagTime = NaN;
  private readonly prevTarget = new Float64Array(3);
  private targetSpeed = 0;

  constructor(
    private readonly world: SimWorld,
    private readonly tracking: TrackingModel = { positionNoise: 0, latencyTicks: 0, seed: 0 },
  ) {
    this.bystander0 = new Float64Array(3 * world.bystanderBodyIds.length);
    const depth = Math.max(0, Math.floor(tracking.latencyTicks)) + 1;
    this.history = new Float64Array(depth * 3 * world.bystanderBodyIds.length);
    this.historyTime = new Float64Array(depth);
    this.declared = new Uint8Array(Object.keys(I).length);
    const names = new Set<string>(world.scene.signals);
    const keys = ALL_SIM_SIGNALS;
    keys.forEach((k, i) => (this.declared[i] = names.has(k) ? 1 : 0));
  }

  /** Capture the t = 0 references (call right after world.reset). */
  begin(): void {
    const w = this.world;
    w.bodyQuat(w.targetBodyId, this.quat);
    bodyZ(this.quat, this.bz0);
    w.bodyPos(w.targetBodyId, this.pos);
    this.liftBaseline = this.pos[2] ?? 0;
    w.bystanderBodyIds.forEach((b, i) => {
      w.bodyPos(b, this.pos);
      this.bystander0.set(this.pos, 3 * i);
    });
    this.historyCount = 0;
    this.lastTrackedTime = NaN;
    this.eeCount = 0;
    this.lastDiagTime = NaN;
    this.targetSpeed = 0;
    w.bodyPos(w.targetBodyId, this.prevTarget);
    const rng = mulberry32(this.tracking.seed);
    this.gauss = () => boxMuller(1 - rng(), rng());
  }

  /** Once per world tick: push the TCP into the smoothing window and difference the target. */
  private diagnostics(): void {
    const w = this.world;
    if (w.time === this.lastDiagTime) return;
    const elapsed = Number.isNaN(this.lastDiagTime) ? 0 : w.time - this.lastDiagTime;
    this.lastDiagTime = w.time;
    w.tcpPos(this.pos);
    const n = this.eeCount;
    this.eeRaw.set(this.pos, (n % SMOOTH) * 3);
    const m = Math.min(n + 1, SMOOTH);
    for (let a = 0; a < 3; a++) {
      let sum = 0;
      for (let j = 0; j < m; j++) sum += this.eeRaw[j * 3 + a] ?? 0;
      this.eeSmooth[(n % 4) * 3 + a] = sum / m;
    }
    this.eeCount++;
    w.bodyPos(w.targetBodyId, this.pos);
    if (elapsed > 0) {
      const dx = (this.pos[0] ?? 0) - (this.prevTarget[0] ?? 0);
      const dy = (this.pos[1] ?? 0) - (this.prevTarget[1] ?? 0);
      const dz = (this.pos[2] ?? 0) - (this.prevTarget[2] ?? 0);
      this.targetSpeed = Math.sqrt(dx * dx + dy * dy + dz * dz) / elapsed;
    }
    this.prevTarget.set(this.pos);
  }

  /** Record this tick's bystander positions once per world tick (ring of latency + 1 ticks). */
  private track(): void {
    const w = this.world;
    if (w.time === this.lastTrackedTime) return;
    this.lastTrackedTime = w.time;
    const depth = this.historyTime.length;
    const slot = this.historyCount % depth;
    const nb = w.bystanderBodyIds.length;
    for (let i = 0; i < nb; i++) {
      w.bodyPos(w.bystanderBodyIds[i] ?? 0, this.pos);
      this.history.set(this.pos, (slot * nb + i) * 3);
    }
    this.historyTime[slot] = w.time;
    this.historyCount++;
  }

  /** Fill `frame` with the signals of the world's current tick, stamped `now`. */
  fill(frame: SignalFrame, now: number): void {
    const w = this.world;
    const p = w.peaks;
    const d = this.declared;
    let k = 0;
    if (d[k++]) frame.set(I.af, p.armFurniture, now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.tf, p.targetFurniture, now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.max, p.anyPair, now, SIM_SOURCE_ID);
    if (d[k++]) {
      this.track();
      const depth = this.historyTime.length;
      const lag = Math.min(depth - 1, this.historyCount - 1);
      const slot = (this.historyCount - 1 - lag) % depth;
      const nb = w.bystanderBodyIds.length;
      const sigma = this.tracking.positionNoise;
      let disp = 0;
      for (let i = 0; i < nb; i++) {
        const base = (slot * nb + i) * 3;
        for (let a = 0; a < 3; a++)
          this.trackedPos[a] = (this.history[base + a] ?? 0) + (sigma > 0 ? sigma * this.gauss() : 0);
        const dx = (this.trackedPos[0] ?? 0) - (this.bystander0[3 * i] ?? 0);
        const dy = (this.trackedPos[1] ?? 0) - (this.bystander0[3 * i + 1] ?? 0);
        const dz = (this.trackedPos[2] ?? 0) - (this.bystander0[3 * i + 2] ?? 0);
        const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (dist > disp) disp = dist;
      }
      const exact = sigma === 0 && this.tracking.latencyTicks <= 0;
      const age = w.time - (this.historyTime[slot] ?? w.time);
      frame.set(I.disp, disp, now - age, exact ? SIM_SOURCE_ID : SIM_TRACKING_SOURCE_ID);
    }
    if (d[k++]) {
      w.bodyQuat(w.targetBodyId, this.quat);
      bodyZ(this.quat, this.bz);
      const dot =
        (this.bz[0] ?? 0) * (this.bz0[0] ?? 0) +
        (this.bz[1] ?? 0) * (this.bz0[1] ?? 0) +
        (this.bz[2] ?? 0) * (this.bz0[2] ?? 0);
      frame.set(I.tilt, (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI, now, SIM_SOURCE_ID);
    }
    if (d[k++]) {
      w.bodyPos(w.targetBodyId, this.pos);
      frame.set(I.above, (this.pos[2] ?? 0) - this.liftBaseline, now, SIM_SOURCE_ID);
    }
    if (d[k++]) frame.set(I.grip, w.fingerObjectContact ? 1 : 0, now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.torque, p.maxArmTorque, now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.self, p.selfClearance, now, SIM_SOURCE_ID);
    this.diagnostics();
    const n = this.eeCount;
    const dt = w.scene.controlDt;
    const diff = (order: number): number => {
      // Backward finite difference of the smoothed TCP path (causal: the monitor runs online).
      if (n - SMOOTH + 1 < order + 1) return 0;
      const c = order === 1 ? [1, -1] : order === 2 ? [1, -2, 1] : [1, -3, 3, -1];
      let sq = 0;
      for (let a = 0; a < 3; a++) {
        let v = 0;
        for (let j = 0; j < c.length; j++) v += (c[j] ?? 0) * (this.eeSmooth[((n - 1 - j) % 4) * 3 + a] ?? 0);
        sq += v * v;
      }
      return Math.sqrt(sq) / dt ** order;
    };
    if (d[k++]) frame.set(I.eeSpeed, diff(1), now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.eeAcc, diff(2), now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.eeJerk, diff(3), now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.tgtSpeed, this.targetSpeed, now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.release, w.fingerObjectContact ? 0 : this.targetSpeed, now, SIM_SOURCE_ID);
    if (d[k++]) frame.set(I.noFurn, p.armFurniture < NO_CONTACT_FORCE ? 1 : 0, now, SIM_SOURCE_ID);
    frame.t = now;
  }
}
