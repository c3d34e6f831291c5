/**
 * The learned residual model: a one-hidden-layer MLP y = W2·tanh(W1·x + b1) + b2. The hidden layer
 * is a fixed seeded random projection and only the output layer is fitted (ridge least squares) —
 * a random-feature network: small, deterministic, and exactly exportable to ONNX (onnx-export.ts).
 * Inputs are standardised inside W1/b1, so the exported graph is just MatMul/Add/Tanh/MatMul/Add.
 */
import { gaussian, mulberry32Open } from '../util/rng.js';
import { ridgeLeastSquares } from './least-squares.js';

export interface Mlp {
  inputs: number;
  hidden: number;
  outputs: number;
  /** hidden × inputs, row-major (h = W1·x). */
  w1: Float64Array;
  b1: Float64Array;
  /** outputs × hidden, row-major. */
  w2: Float64Array;
  b2: Float64Array;
}

export function mlpPredict(
  m: Mlp,
  x: ArrayLike<number>,
  out: Float64Array,
  hiddenScratch = new Float64Array(m.hidden),
): void {
  for (let h = 0; h < m.hidden; h++) {
    let s = m.b1[h]!;
    for (let i = 0; i < m.inputs; i++) s += m.w1[h * m.inputs + i]! * (x[i] ?? 0);
    hiddenScratch[h] = Math.tanh(s);
  }
  for (let o = 0; o < m.outputs; o++) {
    let s = m.b2[o]!;
    for (let h = 0; h < m.hidden; h++) s += m.w2[o * m.hidden + h]! * hiddenScratch[h]!;
    out[o] = s;
  }
}

/** Seeded normal variates (mulberry32 + Box–Muller): the fit is reproducible. */
function normals(seed: number): () => number {
  const uni = mulberry32Open(seed);
  return () => gaussian(uni);
}

/** Fit on X (n × inputs) → Y (n × outputs), row-major. */
export function fitRandomFeatureMlp(
  X: Float64Array,
  Y: Float64Array,
  n: number,
  inputs: number,
  outputs: number,
  options: { hidden?: number; seed?: number; ridge?: number } = {},
): Mlp {
  const hidden = options.hidden ?? 32;
  const rnd = normals(options.seed ?? 1);
  const mean = new Float64Array(inputs),
    std = new Float64Array(inputs);
  for (let i = 0; i < inputs; i++) {
    let s = 0,
      s2 = 0;
    for (let r = 0; r < n; r++) {
      const v = X[r * inputs + i]!;
      s += v;
      s2 += v * v;
    }
    mean[i] = s / n;
    std[i] = Math.sqrt(Math.max(s2 / n - (s / n) ** 2, 0)) || 1;
  }
  const w1 = new Float64Array(hidden * inputs),
    b1 = new Float64Array(hidden);
  for (let h = 0; h < hidden; h++) {
    let shift = 0;
    for (let i = 0; i < inputs; i++) {
      const w = rnd() / Math.sqrt(inputs);
      w1[h * inputs + i] = w / std[i]!;
      shift += (w * mean[i]!) / std[i]!;
    }
    b1[h] = 0.5 * rnd() - shift;
  }
  const H = new Float64Array(n * (hidden + 1));
  const tmp = new Float64Array(hidden);
  const probe: Mlp = { inputs, hidden, outputs: 0, w1, b1, w2: new Float64Array(0), b2: new Float64Array(0) };
  for (let r = 0; r < n; r++) {
    mlpPredict(probe, X.subarray(r * inputs, (r + 1) * inputs), new Float64Array(0), tmp);
    H.set(tmp, r * (hidden + 1));
    H[r * (hidden + 1) + hidden] = 1;
  }
  const w2 = new Float64Array(outputs * hidden),
    b2 = new Float64Array(outputs);
  const y = new Float64Array(n);
  for (let o = 0; o < outputs; o++) {
    for (let r = 0; r < n; r++) y[r] = Y[r * outputs + o]!;
    const coef = ridgeLeastSquares(H, n, hidden + 1, y, options.ridge ?? 1e-6);
    w2.set(coef.subarray(0, hidden), o * hidden);
    b2[o] = coef[hidden]!;
  }
  return { inputs, hidden, outputs, w1, b1, w2, b2 };
}
