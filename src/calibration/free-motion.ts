/**
 * The free-motion model: joint torques (N·m) the SO-101 body joints need with nothing touching the
 * arm, τ_j = Y_j(q)·θ_j + b_j·q̇_j + c_j·tanh(q̇_j / w). Y(q) is the gravity regressor from the FK:
 * with link k's inertial parameters π_k = (m, m·cx, m·cy, m·cz) the potential energy is
 * U = g·Σ_k (z(o_k)·m_k + R_k[2,:]·(m_k·c_k)), linear in π, and τ_g = ∂U/∂q. θ_j is fitted per joint
 * (it absorbs each servo's gear/sign), so the fit is linear least squares.
 * Slow-motion model: inertial torques are neglected (calibration moves slowly; see the report).
 */
import { ForwardKinematics, SO101_CHAIN, TF } from '../kinematics/index.js';
import { GRAVITY_PARAMS, SO101_ARM_JOINTS } from './so101.js';

export const GRAVITY = 9.80665;
const LINKS = 5;

/** Anything that predicts free-motion torques: the analytic model, or a learned model (ONNX). */
export interface FreeMotionModel {
  readonly kind: string;
  /** Number of torques produced (SO-101: 5 body joints). */
  readonly joints: number;
  /** Expected joint torques (N·m) at q (rad, 6) and q̇ (rad/s, 6), written into out. No allocation. */
  predict(q: ArrayLike<number>, qd: ArrayLike<number>, out: Float64Array): void;
}

export interface AnalyticFreeMotionParams {
  gravity: readonly (readonly number[])[];
  viscous: readonly number[];
  coulomb: readonly number[];
  coulombWidth: number;
}

/** Gravity regressor Y (5 × 20, row-major) for the SO-101 at q. */
export class So101GravityRegressor {
  readonly fk = new ForwardKinematics(SO101_CHAIN);
  readonly Y = new Float64Array(SO101_ARM_JOINTS * GRAVITY_PARAMS);

  compute(q: ArrayLike<number>): Float64Array {
    const fk = this.fk;
    fk.compute(q);
    const F = fk.frames;
    const Y = this.Y;
    Y.fill(0);
    for (let j = 0; j < SO101_ARM_JOINTS; j++) {
      const oj = TF * (j + 1);
      const zx = F[oj + 2]!,
        zy = F[oj + 5]!;
      const ox = F[oj + 9]!,
        oy = F[oj + 10]!;
      // Serial chain: joint j moves links (frames) j+1 … 5.
      for (let k = j + 1; k <= LINKS; k++) {
        const ok = TF * k;
        const col = j * GRAVITY_PARAMS + 4 * (k - 1);
        Y[col] = GRAVITY * (zx * (F[ok + 10]! - oy) - zy * (F[ok + 9]! - ox));
        for (let i = 0; i < 3; i++) Y[col + 1 + i] = GRAVITY * (zx * F[ok + 3 + i]! - zy * F[ok + i]!);
      }
    }
    return Y;
  }
}

export class AnalyticFreeMotionModel implements FreeMotionModel {
  readonly kind = 'analytic gravity + viscous/Coulomb friction';
  readonly joints = SO101_ARM_JOINTS;
  private readonly regressor = new So101GravityRegressor();
  private readonly theta: Float64Array;

  constructor(readonly params: AnalyticFreeMotionParams) {
    this.theta = new Float64Array(SO101_ARM_JOINTS * GRAVITY_PARAMS);
    params.gravity.forEach((row, j) => row.forEach((v, i) => (this.theta[j * GRAVITY_PARAMS + i] = v)));
  }

  predict(q: ArrayLike<number>, qd: ArrayLike<number>, out: Float64Array): void {
    const Y = this.regressor.compute(q);
    const { viscous, coulomb, coulombWidth } = this.params;
    for (let j = 0; j < SO101_ARM_JOINTS; j++) {
      let g = 0;
      for (let i = 0; i < GRAVITY_PARAMS; i++) g += Y[j * GRAVITY_PARAMS + i]! * this.theta[j * GRAVITY_PARAMS + i]!;
      const v = qd[j] ?? 0;
      out[j] = g + (viscous[j] ?? 0) * v + (coulomb[j] ?? 0) * Math.tanh(v / coulombWidth);
    }
  }
}
