/**
 * A simulated SO-101 behind the Feetech emulator's physics hook (a simulator, not hardware): joints
 * track Goal_Position at a bounded speed while torque is on, and each servo reports the load its
 * joint would need — gravity of known link masses/COMs (+ an optional payload at the TCP), viscous
 * and Coulomb friction, a cable-spring term the analytic model cannot express — divided by a known
 * torque constant, plus seeded noise, rounded to register units. Calibration tests recover these.
 */
import type { Clock } from '../../src/util/clock.js';
import { So101GravityRegressor } from '../../src/calibration/free-motion.js';
import { GRAVITY_PARAMS, SO101_ARM_JOINTS } from '../../src/calibration/so101.js';
import { radiansPerTick, ticksToRadians, type JointTicks } from '../../src/calibration/lerobot.js';
import { SO101_FRAMES, TF } from '../../src/kinematics/index.js';
import type { FeetechEmulator, PhysicsHook } from '../feetech/index.js';
import { mulberry32, symmetric } from '../../src/util/rng.js';

export interface SimArmTruth {
  /** Link mass (kg) and COM (m, link frame) for frames 1..5 (shoulder … gripper incl. jaw). */
  links: readonly { mass: number; com: readonly [number, number, number] }[];
  /** N·m per load unit (0.1 %), per body joint. */
  torqueConstant: readonly number[];
  viscous: readonly number[];
  coulomb: readonly number[];
  coulombWidth: number;
  /** Cable spring on shoulder_lift: amplitude (N·m) of κ·sin(2·q_lift). */
  cableSpringNm: number;
  /** Load noise, ± register units (uniform). */
  loadNoise: number;
  /** Max joint speed (steps/s) while tracking the goal. */
  maxSpeed: number;
  seed: number;
}

/** Plausible SO-101 figures (3D-printed links, STS3215 at 12 V): the simulator's ground truth. */
export const DEFAULT_SIM_TRUTH: SimArmTruth = {
  links: [
    { mass: 0.12, com: [-0.015, -0.01, -0.03] },
    { mass: 0.11, com: [-0.06, -0.014, 0] },
    { mass: 0.1, com: [-0.07, 0.003, 0] },
    { mass: 0.06, com: [0, -0.03, 0.01] },
    { mass: 0.09, com: [-0.005, 0, -0.05] },
  ],
  torqueConstant: [0.0029, 0.0031, 0.0028, 0.003, 0.0029],
  viscous: [0.02, 0.03, 0.025, 0.015, 0.01],
  coulomb: [0.03, 0.05, 0.04, 0.025, 0.02],
  coulombWidth: 0.05,
  cableSpringNm: 0.02,
  loadNoise: 2,
  maxSpeed: 600,
  seed: 7,
};

export class SimulatedSo101 {
  /** Payload at the TCP (kg): set by the calibration procedure's "attach the reference weight" step. */
  payloadKg = 0;
  /** Table plane height (m, base frame): the TCP pressing below it meets a stiff spring. null = no table. */
  tableZ: number | null = null;
  tableStiffness = 3000;
  /** Joint torques (N·m) behind the last reported loads, for tests. */
  readonly lastTorque = new Float64Array(SO101_ARM_JOINTS);
  private readonly regressor = new So101GravityRegressor();
  private readonly theta = new Float64Array(SO101_ARM_JOINTS * GRAVITY_PARAMS);
  private readonly q = new Float64Array(6);
  private readonly qd = new Float64Array(6);
  private readonly tcpJ = new Float64Array(18);
  private readonly rng: () => number;
  private lastT = NaN;

  constructor(
    readonly emulator: FeetechEmulator,
    readonly ids: readonly number[],
    /** Each servo's tick ↔ radian map (so101JointTicks), in the order of `ids`. */
    readonly ticks: readonly JointTicks[],
    readonly truth: SimArmTruth,
    readonly clock: Clock,
  ) {
    this.rng = mulberry32(truth.seed);
    truth.links.forEach((l, k) => {
      for (let j = 0; j < SO101_ARM_JOINTS; j++) {
        const o = j * GRAVITY_PARAMS + 4 * k;
        this.theta[o] = l.mass;
        this.theta[o + 1] = l.mass * l.com[0];
        this.theta[o + 2] = l.mass * l.com[1];
        this.theta[o + 3] = l.mass * l.com[2];
      }
    });
  }

  /** Install as the emulator's physics hook. */
  install(): PhysicsHook {
    const hook: PhysicsHook = () => this.step();
    this.emulator.setPhysics(hook);
    return hook;
  }

  /** Advance every joint to the clock's now and refresh all present registers (once per instant). */
  step(): void {
    const now = this.clock.now();
    if (now === this.lastT) return;
    const dt = Number.isNaN(this.lastT) ? 0 : Math.max(0, now - this.lastT);
    this.lastT = now;
    const servos = this.ids.map((id) => this.emulator.servo(id));
    servos.forEach((s, j) => {
      const present = s.getRegister('Present_Position');
      let next = present;
      if (s.torqueEnabled && dt > 0) {
        const e = s.goalPosition - present;
        next = Math.round(present + Math.sign(e) * Math.min(Math.abs(e), this.truth.maxSpeed * dt));
      }
      const v = dt > 0 ? (next - present) / dt : 0;
      s.setPresent({ position: next, velocity: v, moving: next !== s.goalPosition });
      const ticks = this.ticks[j]!;
      this.q[j] = ticksToRadians(next, ticks);
      this.qd[j] = v * radiansPerTick(ticks);
    });
    this.torques(this.q, this.qd, this.lastTorque);
    servos.forEach((s, j) => {
      if (j >= SO101_ARM_JOINTS) {
        s.setPresent({ load: 0, current: 0 });
        return;
      }
      const load = this.lastTorque[j]! / this.truth.torqueConstant[j]! + symmetric(this.rng, this.truth.loadNoise);
      const clamped = Math.max(-1000, Math.min(1000, Math.round(load)));
      s.setPresent({ load: clamped, current: Math.round(Math.abs(clamped) * 0.4) });
    });
  }

  /** Upward table contact force on the TCP (N) at TCP height z. */
  tableForce(z: number): number {
    return this.tableZ !== null && z < this.tableZ ? this.tableStiffness * (this.tableZ - z) : 0;
  }

  /** True joint torques (N·m) at q, q̇ with the current payload. */
  torques(q: ArrayLike<number>, qd: ArrayLike<number>, out: Float64Array): void {
    const Y = this.regressor.compute(q);
    const fk = this.regressor.fk;
    const t = TF * SO101_FRAMES.tcp;
    fk.pointJacobian(this.tcpJ, SO101_FRAMES.tcp, fk.frames[t + 9]!, fk.frames[t + 10]!, fk.frames[t + 11]!);
    const tr = this.truth;
    for (let j = 0; j < SO101_ARM_JOINTS; j++) {
      let g = 0;
      for (let i = 0; i < GRAVITY_PARAMS; i++) g += Y[j * GRAVITY_PARAMS + i]! * this.theta[j * GRAVITY_PARAMS + i]!;
      g += this.payloadKg * 9.80665 * this.tcpJ[12 + j]!;
      // The table pushes up on the TCP; the servo must add −Jᵀ·F to stay put.
      g -= this.tableForce(fk.frames[t + 11]!) * this.tcpJ[12 + j]!;
      const v = qd[j] ?? 0;
      out[j] = g + tr.viscous[j]! * v + tr.coulomb[j]! * Math.tanh(v / tr.coulombWidth);
    }
    out[1] = out[1]! + tr.cableSpringNm * Math.sin(2 * (q[1] ?? 0));
  }
}
