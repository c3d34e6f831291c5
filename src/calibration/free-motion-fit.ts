/**
 * Fit the SO-101 free-motion model and torque constants from recorded free motion (design §5).
 * Per body joint j, in register units u (load or current):
 *   u_j = Y_j(q)·θ'_j + b'_j·q̇_j + c'_j·tanh(q̇_j / w) + s_j·G_j(q)·[payload on]
 * where G_j = m_p·g·∂z_payload/∂q_j is the known gravity torque of the reference payload at the TCP.
 * s_j = 1/k_j gives the torque constant; θ_j = k_j·θ'_j etc. convert the rest to N·m. A joint the
 * payload cannot load (vertical shoulder_pan axis, wrist_roll about its own axis) keeps the datasheet
 * constant. Linear least squares throughout (ridge, least-squares.ts).
 */
import { SO101_FRAMES, TF, PointForceEstimator } from '../kinematics/index.js';
import {
  AnalyticFreeMotionModel,
  GRAVITY,
  So101GravityRegressor,
  type AnalyticFreeMotionParams,
} from './free-motion.js';
import { ridgeLeastSquares } from './least-squares.js';
import { fitRandomFeatureMlp, mlpPredict, type Mlp } from './mlp.js';
import { GRAVITY_PARAMS, SO101_ARM_JOINTS } from './so101.js';

export interface FreeMotionSample {
  /** Joint angles (rad, 6) and velocities (rad/s, 6). */
  q: Float64Array;
  qd: Float64Array;
  /** Register readings of the body joints (load 0.1 % or current units), 5. */
  units: Float64Array;
  /** Reference payload attached at the TCP (kg); 0 for plain free motion. */
  payloadKg: number;
}

export interface FreeMotionFitOptions {
  coulombWidth: number;
  /** Fallback N·m per unit (datasheet stall / 1000). */
  datasheetConstant: number;
  /** A joint needs at least this RMS payload torque (N·m) to fit its constant. Default 0.05. */
  minPayloadTorqueNm?: number;
  /** Damping of the force estimate used for the noise floor. */
  forceDamping: number;
  /** Fit the learned residual model too (default true). */
  learnedResidual?: boolean;
}

export interface FreeMotionFit {
  constants: number[];
  constantSources: string[];
  params: AnalyticFreeMotionParams;
  /** RMS of τ_measured − τ_model per joint (N·m) on the plain free-motion samples. */
  residualRmsNm: number[];
  /** Same after the learned residual model. */
  learnedRmsNm?: number[];
  learned?: Mlp;
  /** |F| of the force estimate on plain free motion (N): RMS and 99th percentile = noise floor. */
  forceRmsN: number;
  forceP99N: number;
  /**
   * The same noise floor without the learned residual (analytic model only): what contact detection
   * has to beat when onnxruntime-node is not installed. Equals forceRmsN/forceP99N without `learned`.
   */
  analyticForceRmsN: number;
  analyticForceP99N: number;
  samples: number;
}

const COLS = GRAVITY_PARAMS + 3;

export function fitFreeMotion(samples: readonly FreeMotionSample[], o: FreeMotionFitOptions): FreeMotionFit {
  const n = samples.length;
  if (n < COLS * 2) throw new RangeError(`need at least ${COLS * 2} samples, got ${n}`);
  const reg = new So101GravityRegressor();
  const Ys = new Float64Array(n * SO101_ARM_JOINTS * GRAVITY_PARAMS);
  const G = new Float64Array(n * SO101_ARM_JOINTS);
  const J = new Float64Array(18);
  samples.forEach((s, r) => {
    Ys.set(reg.compute(s.q), r * SO101_ARM_JOINTS * GRAVITY_PARAMS);
    if (s.payloadKg > 0) {
      const fk = reg.fk;
      const t = TF * SO101_FRAMES.tcp;
      fk.pointJacobian(J, SO101_FRAMES.tcp, fk.frames[t + 9]!, fk.frames[t + 10]!, fk.frames[t + 11]!);
      for (let j = 0; j < SO101_ARM_JOINTS; j++) G[r * SO101_ARM_JOINTS + j] = s.payloadKg * GRAVITY * J[12 + j]!;
    }
  });
  const minPayload = o.minPayloadTorqueNm ?? 0.05;
  const constants: number[] = [],
    sources: string[] = [];
  const gravity: number[][] = [],
    viscous: number[] = [],
    coulomb: number[] = [];
  const A = new Float64Array(n * COLS);
  const b = new Float64Array(n);
  for (let j = 0; j < SO101_ARM_JOINTS; j++) {
    let gEnergy = 0,
      loaded = 0;
    for (let r = 0; r < n; r++) {
      const s = samples[r]!;
      const row = r * COLS;
      A.set(
        Ys.subarray((r * SO101_ARM_JOINTS + j) * GRAVITY_PARAMS, (r * SO101_ARM_JOINTS + j + 1) * GRAVITY_PARAMS),
        row,
      );
      const v = s.qd[j]!;
      A[row + GRAVITY_PARAMS] = v;
      A[row + GRAVITY_PARAMS + 1] = Math.tanh(v / o.coulombWidth);
      const g = G[r * SO101_ARM_JOINTS + j]!;
      A[row + GRAVITY_PARAMS + 2] = g;
      if (s.payloadKg > 0) {
        gEnergy += g * g;
        loaded++;
      }
      b[r] = s.units[j]!;
    }
    const payloadRms = loaded > 0 ? Math.sqrt(gEnergy / loaded) : 0;
    const useFit = payloadRms >= minPayload;
    if (!useFit) for (let r = 0; r < n; r++) A[r * COLS + GRAVITY_PARAMS + 2] = 0;
    const x = ridgeLeastSquares(A, n, COLS, b);
    const s = x[GRAVITY_PARAMS + 2]!;
    let k = o.datasheetConstant;
    let source = `datasheet stall/1000 (payload torque RMS ${payloadRms.toFixed(3)} N·m < ${minPayload} N·m: not identifiable)`;
    if (useFit && Math.abs(s) > 1e-9) {
      k = 1 / s;
      source = `payload fit (reference ${maxPayload(samples)} kg at the TCP, payload torque RMS ${payloadRms.toFixed(3)} N·m)`;
    }
    constants.push(k);
    sources.push(source);
    gravity.push(Array.from(x.subarray(0, GRAVITY_PARAMS), (v) => v * k));
    viscous.push(x[GRAVITY_PARAMS]! * k);
    coulomb.push(x[GRAVITY_PARAMS + 1]! * k);
  }
  const params: AnalyticFreeMotionParams = { gravity, viscous, coulomb, coulombWidth: o.coulombWidth };
  const model = new AnalyticFreeMotionModel(params);

  // Residuals on plain free motion (no payload): what contact detection has to beat.
  const plain = samples.filter((s) => s.payloadKg === 0);
  const m = plain.length;
  const res = new Float64Array(m * SO101_ARM_JOINTS);
  const pred = new Float64Array(SO101_ARM_JOINTS);
  plain.forEach((s, r) => {
    model.predict(s.q, s.qd, pred);
    for (let j = 0; j < SO101_ARM_JOINTS; j++) res[r * SO101_ARM_JOINTS + j] = constants[j]! * s.units[j]! - pred[j]!;
  });
  const fit: FreeMotionFit = {
    constants,
    constantSources: sources,
    params,
    residualRmsNm: rms(res, m),
    samples: n,
    forceRmsN: NaN,
    forceP99N: NaN,
    analyticForceRmsN: NaN,
    analyticForceP99N: NaN,
  };
  let finalRes = res;
  if ((o.learnedResidual ?? true) && m > 40) {
    const X = new Float64Array(m * 10);
    plain.forEach((s, r) => {
      for (let j = 0; j < 5; j++) {
        X[r * 10 + j] = s.q[j]!;
        X[r * 10 + 5 + j] = s.qd[j]!;
      }
    });
    const mlp = fitRandomFeatureMlp(X, res, m, 10, SO101_ARM_JOINTS, { hidden: 32, seed: 1 });
    const after = new Float64Array(m * SO101_ARM_JOINTS);
    const y = new Float64Array(SO101_ARM_JOINTS);
    for (let r = 0; r < m; r++) {
      mlpPredict(mlp, X.subarray(r * 10, r * 10 + 10), y);
      for (let j = 0; j < SO101_ARM_JOINTS; j++)
        after[r * SO101_ARM_JOINTS + j] = res[r * SO101_ARM_JOINTS + j]! - y[j]!;
    }
    fit.learned = mlp;
    fit.learnedRmsNm = rms(after, m);
    finalRes = after;
  }
  const est = new PointForceEstimator(reg.fk, SO101_FRAMES.tcp, SO101_ARM_JOINTS, o.forceDamping);
  const noiseFloor = (residuals: Float64Array): { rms: number; p99: number } => {
    const forces = new Float64Array(m);
    plain.forEach((s, r) => {
      reg.fk.compute(s.q);
      forces[r] = est.estimate(residuals.subarray(r * SO101_ARM_JOINTS, (r + 1) * SO101_ARM_JOINTS));
    });
    let f2 = 0;
    for (const f of forces) f2 += f * f;
    const sorted = Array.from(forces).sort((a, c) => a - c);
    return {
      rms: Math.sqrt(f2 / Math.max(1, m)),
      p99: sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? NaN,
    };
  };
  const floor = noiseFloor(finalRes);
  const analytic = finalRes === res ? floor : noiseFloor(res);
  fit.forceRmsN = floor.rms;
  fit.forceP99N = floor.p99;
  fit.analyticForceRmsN = analytic.rms;
  fit.analyticForceP99N = analytic.p99;
  return fit;
}

function rms(res: Float64Array, rows: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < SO101_ARM_JOINTS; j++) {
    let s = 0;
    for (let r = 0; r < rows; r++) s += res[r * SO101_ARM_JOINTS + j]! ** 2;
    out.push(Math.sqrt(s / Math.max(1, rows)));
  }
  return out;
}

function maxPayload(samples: readonly FreeMotionSample[]): number {
  let m = 0;
  for (const s of samples) m = Math.max(m, s.payloadKg);
  return m;
}
