/**
 * The learned free-motion residual exported by the calibration, run with onnxruntime-node.
 * ONNX sessions only run asynchronously, so on the control path `OnnxFreeMotionModel` is
 * pipelined: predict() = analytic model + the residual from the most recent completed ONNX run,
 * and starts the next run on the current inputs (one sample of latency; 0 until the first run).
 *
 * onnxruntime-node is an optional peer dependency (≈290 MB with its CUDA/macOS/Windows binaries,
 * and an install script that downloads more): it is imported here, on first use, and nowhere else.
 * Without it the residual is not applied and the calibration's no-residual fallback (wider
 * deadband and contact threshold) is used — see `so101FreeMotion`.
 */
import type * as Ort from 'onnxruntime-node';
import { AnalyticFreeMotionModel, type FreeMotionModel } from '../../src/calibration/free-motion.js';
import { SO101_ARM_JOINTS, type So101Calibration } from '../../src/calibration/so101.js';
import { err, ok, type Result } from '../../src/util/result.js';

export const RESIDUAL_INPUTS = 10;

/** What users see when the runtime is missing: what is lost, what armguard does instead, the fix. */
export const ONNX_RUNTIME_MISSING =
  'onnxruntime-node is not installed, so the learned free-motion residual cannot run. ' +
  "armguard uses the analytic free-motion model alone with the calibration's wider no-residual contact threshold " +
  '(contact_force.no_residual_threshold_n). To use the residual: npm install onnxruntime-node ' +
  '(offline or without a GPU: npm install onnxruntime-node --onnxruntime-node-install=skip).';

/** Import onnxruntime-node (or what `importer` loads in its place); a missing package is a value, not a throw. */
export function importOnnxRuntime(
  importer: () => Promise<typeof Ort> = () => import('onnxruntime-node'),
): Promise<Result<typeof Ort, string>> {
  return importer().then(
    (m) => ok(m),
    (e: unknown) => {
      const code = (e as { code?: string }).code;
      return err(
        code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND'
          ? ONNX_RUNTIME_MISSING
          : `onnxruntime-node failed to load: ${(e as Error).message}`,
      );
    },
  );
}

let runtime: Promise<Result<typeof Ort, string>> | undefined;

/** onnxruntime-node, imported on the first call only. */
export function loadOnnxRuntime(): Promise<Result<typeof Ort, string>> {
  runtime ??= importOnnxRuntime();
  return runtime;
}

export class OnnxResidual {
  private constructor(
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
  ) {}

  /** Load a model (bytes or a file path); an error names what is missing or what failed. */
  static async load(model: Uint8Array | string): Promise<Result<OnnxResidual, string>> {
    const rt = await loadOnnxRuntime();
    if (!rt.ok) return rt;
    try {
      const session =
        typeof model === 'string'
          ? await rt.value.InferenceSession.create(model)
          : await rt.value.InferenceSession.create(model);
      return ok(new OnnxResidual(rt.value, session));
    } catch (e) {
      return err(
        `${typeof model === 'string' ? model : 'residual model'}: onnxruntime-node cannot load it: ${(e as Error).message}`,
      );
    }
  }

  /** Rows of [q0..q4, q̇0..q̇4] → rows of 5 residual torques (N·m). */
  async run(x: Float32Array, rows: number): Promise<Float32Array> {
    const out = await this.session.run({ x: new this.ort.Tensor('float32', x, [rows, RESIDUAL_INPUTS]) });
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

/** The free-motion model an SO-101 calibration asks for, and the calibration to run it with. */
export interface So101FreeMotion {
  model: FreeMotionModel;
  /** The input calibration, or a copy with the no-residual deadband and contact thresholds. */
  calibration: So101Calibration;
  /** Set when the residual was named but not applied: why, and what is used instead. */
  notice?: string;
}

/**
 * Analytic model + learned residual when the calibration names one (`residualPath`: its file,
 * resolved by the caller against the calibration's directory) and onnxruntime-node can run it;
 * otherwise the analytic model with the calibration's no-residual fallback applied. A calibration
 * that names a residual without a fallback is refused by its parser, so this never guesses.
 */
export async function so101FreeMotion(
  cal: So101Calibration,
  residualPath: string | undefined,
  load = OnnxResidual.load,
): Promise<So101FreeMotion> {
  const analytic = new AnalyticFreeMotionModel(cal.freeMotion);
  if (residualPath === undefined || !cal.freeMotion.residualOnnx) return { model: analytic, calibration: cal };
  const residual = await load(residualPath);
  if (residual.ok) return { model: new OnnxFreeMotionModel(analytic, residual.value), calibration: cal };
  const notice =
    residual.error === ONNX_RUNTIME_MISSING
      ? residual.error
      : `${residual.error} — armguard uses the analytic free-motion model alone with the calibration's wider no-residual contact threshold (contact_force.no_residual_threshold_n).`;
  return { model: analytic, calibration: withoutResidual(cal), notice };
}

/** The calibration as it applies without its learned residual (pure). */
export function withoutResidual(cal: So101Calibration): So101Calibration {
  const fallback = cal.contactForce.noResidual;
  if (!fallback) return cal;
  const thresholds = { ...cal.thresholds };
  for (const key of ['arm_furniture_force', 'max_contact_force']) {
    const t = thresholds[key];
    if (t) {
      thresholds[key] = {
        ...t,
        value: fallback.thresholdN,
        reason: `${t.reason} Learned residual not applied (onnxruntime-node missing, or the model would not load): the analytic model's noise floor, no_residual_threshold_n.`,
      };
    }
  }
  const { residualOnnx: _unused, ...freeMotion } = cal.freeMotion;
  return {
    ...cal,
    freeMotion,
    contactForce: { damping: cal.contactForce.damping, deadbandN: fallback.deadbandN },
    thresholds,
  };
}
