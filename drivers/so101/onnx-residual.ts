/**
 * The learned free-motion residual exported by the calibration, run with onnxruntime-node.
 * ONNX sessions only run asynchronously, so on the control path `OnnxFreeMotionModel` is
 * pipelined: predict() = analytic model + the residual from the most recent completed ONNX run,
 * and starts the next run on the current inputs (one sample of latency; 0 until the first run).
 */
import * as ort from 'onnxruntime-node';
import type { FreeMotionModel } from '../../src/calibration/free-motion.js';
import { SO101_ARM_JOINTS } from '../../src/calibration/so101.js';

export const RESIDUAL_INPUTS = 10;

export class OnnxResidual {
  private constructor(private readonly session: ort.InferenceSession) {}

  static async load(model: Uint8Array | string): Promise<OnnxResidual> {
    const session = typeof model === 'string' ? await ort.InferenceSession.create(model) : await ort.InferenceSession.create(model);
    return new OnnxResidual(session);
  }

  /** Rows of [q0..q4, q̇0..q̇4] → rows of 5 residual torques (N·m). */
  async run(x: Float32Array, rows: number): Promise<Float32Array> {
    const out = await this.session.run({ x: new ort.Tensor('float32', x, [rows, RESIDUAL_INPUTS]) });
    return out.y!.data as Float32Array;
  }
}

export class OnnxFreeMotionModel implements FreeMotionModel {
  readonly kind = 'analytic + learned residual (ONNX, pipelined)';
  readonly joints = SO101_ARM_JOINTS;
  private readonly last = new Float64Array(SO101_ARM_JOINTS);
  private readonly input = new Float32Array(RESIDUAL_INPUTS);
  private busy = false;
  /** Completed ONNX runs (diagnostics). */
  runs = 0;
  /** Last ONNX failure, if any (the residual then stays at its last value). */
  lastError = '';

  constructor(
    readonly analytic: FreeMotionModel,
    readonly residual: OnnxResidual,
  ) {}

  predict(q: ArrayLike<number>, qd: ArrayLike<number>, out: Float64Array): void {
    this.analytic.predict(q, qd, out);
    for (let j = 0; j < SO101_ARM_JOINTS; j++) out[j] = out[j]! + this.last[j]!;
    if (this.busy) return;
    for (let j = 0; j < 5; j++) {
      this.input[j] = q[j] ?? 0;
      this.input[5 + j] = qd[j] ?? 0;
    }
    this.busy = true;
    this.residual.run(this.input, 1).then(
      (y) => {
        for (let j = 0; j < SO101_ARM_JOINTS; j++) this.last[j] = y[j] ?? 0;
        this.runs++;
        this.busy = false;
      },
      (e: unknown) => {
        this.lastError = (e as Error).message;
        this.busy = false;
      },
    );
  }
}
