/**
 * Derived boolean signals (design §2): computed from schema signals before the monitors see a step,
 * so clause formulas can use them as boolean guards (robustness ±∞, never leaking a unit).
 */
import type { SignalName } from './signals.js';

/** Height above the lift baseline (m) above which a gripped object counts as in transport. */
export const TRANSPORT_HEIGHT_M = 0.05;

export interface DerivedSignalSpec {
  readonly name: string;
  readonly kind: 'boolean';
  readonly unit: '0/1';
  readonly inputs: readonly SignalName[];
  readonly description: string;
  /** 1 or 0 from the input values, in `inputs` order (booleans as 0/1). */
  /** Called on the per-sample path: index the inputs, never destructure (no iterator allocation). */
  readonly compute: (inputs: ArrayLike<number>) => number;
}

export const DERIVED_SIGNALS: readonly DerivedSignalSpec[] = [
  {
    name: 'in_transport',
    kind: 'boolean',
    unit: '0/1',
    inputs: ['gripper_contact', 'obj_above_table'],
    description: `transport gate tr = gripper_contact and obj_above_table > ${TRANSPORT_HEIGHT_M} m`,
    compute: (x) => ((x[0] ?? 0) >= 0.5 && (x[1] ?? NaN) > TRANSPORT_HEIGHT_M ? 1 : 0),
  },
];

export function derivedSignal(name: string): DerivedSignalSpec | undefined {
  return DERIVED_SIGNALS.find((d) => d.name === name);
}

/**
 * Columns for every derived signal whose inputs are all present, computed sample by sample.
 * `columns` holds the schema signals of a trace, each aligned with the trace's time axis.
 */
export function deriveColumns(columns: ReadonlyMap<string, Float64Array>, length: number): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  for (const d of DERIVED_SIGNALS) {
    const inputs = d.inputs.map((n) => columns.get(n));
    if (inputs.some((c) => c === undefined)) continue;
    const col = new Float64Array(length);
    const args = new Array<number>(inputs.length).fill(0);
    for (let i = 0; i < length; i++) {
      for (let k = 0; k < inputs.length; k++) args[k] = inputs[k]![i]!;
      col[i] = d.compute(args);
    }
    out.set(d.name, col);
  }
  return out;
}
