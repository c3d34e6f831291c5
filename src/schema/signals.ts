/**
 * The runtime signal schema (design §2; seeds/000 Table 32). Names are the paper's; each signal has a
 * unit, a kind and a maximum age after which a sample is stale. Frames are struct-of-arrays indexed
 * by the position of the signal in SIGNALS so the per-sample path never allocates.
 */
import { secondsToNs } from '../util/time.js';

export type SignalKind = 'real' | 'boolean';

export interface SignalSpec {
  readonly name: string;
  readonly unit: string;
  readonly kind: SignalKind;
  /** Seconds after its timestamp that a sample may still be used by the gate. */
  readonly maxAge: number;
  readonly description: string;
  /** true for the report-only diagnostics (never part of Safety/SBU/VSI). */
  readonly diagnostic?: boolean;
}

export const SIGNALS = [
  {
    name: 'arm_furniture_contact_force',
    unit: 'N',
    kind: 'real',
    maxAge: 0.1,
    description: 'max arm–furniture contact force',
  },
  {
    name: 'target_furniture_contact_force',
    unit: 'N',
    kind: 'real',
    maxAge: 0.1,
    description: 'max held-target–furniture contact force',
  },
  {
    name: 'contact_force_max',
    unit: 'N',
    kind: 'real',
    maxAge: 0.1,
    description: 'max over all retained contact estimates',
  },
  {
    name: 'non_target_disp_max',
    unit: 'm',
    kind: 'real',
    maxAge: 0.25,
    description: 'max bystander displacement from its episode-start pose',
  },
  {
    name: 'target_obj_tilt_world_deg',
    unit: 'deg',
    kind: 'real',
    maxAge: 0.1,
    description: 'held-object tilt from its initial world up axis',
  },
  {
    name: 'obj_above_table',
    unit: 'm',
    kind: 'real',
    maxAge: 0.1,
    description: 'held-object height above the calibrated support surface (relative to lift baseline)',
  },
  { name: 'gripper_contact', unit: '0/1', kind: 'boolean', maxAge: 0.1, description: 'gripper holds an object' },
  { name: 'max_joint_torque', unit: 'N·m', kind: 'real', maxAge: 0.05, description: 'max |τ_i| over arm joints' },
  {
    name: 'self_collision_clearance',
    unit: 'm',
    kind: 'real',
    maxAge: 0.1,
    description:
      'surface distance between the nearest two arm self-collision volumes that may not touch (negative = overlap)',
  },
  {
    name: 'ee_speed',
    unit: 'm/s',
    kind: 'real',
    maxAge: 0.1,
    description: 'end-effector speed (5-step smoothed)',
    diagnostic: true,
  },
  {
    name: 'ee_acc',
    unit: 'm/s²',
    kind: 'real',
    maxAge: 0.1,
    description: 'end-effector acceleration (5-step smoothed)',
    diagnostic: true,
  },
  {
    name: 'ee_jerk',
    unit: 'm/s³',
    kind: 'real',
    maxAge: 0.1,
    description: 'end-effector jerk (5-step smoothed)',
    diagnostic: true,
  },
  {
    name: 'target_obj_speed',
    unit: 'm/s',
    kind: 'real',
    maxAge: 0.1,
    description: 'target object speed',
    diagnostic: true,
  },
  {
    name: 'release_speed',
    unit: 'm/s',
    kind: 'real',
    maxAge: 0.1,
    description: 'end-effector speed at gripper open',
    diagnostic: true,
  },
  {
    name: 'arm_no_furniture_contact',
    unit: '0/1',
    kind: 'boolean',
    maxAge: 0.1,
    description: 'arm–furniture force below 0.5 N',
    diagnostic: true,
  },
] as const satisfies readonly SignalSpec[];

export type SignalName = (typeof SIGNALS)[number]['name'];
export const SIGNAL_COUNT = SIGNALS.length;

const indexByName: ReadonlyMap<string, number> = new Map(SIGNALS.map((s, i) => [s.name, i]));

export function signalIndex(name: string): number | undefined {
  return indexByName.get(name);
}
export function isSignalName(name: string): name is SignalName {
  return indexByName.has(name);
}

/** Per-signal validity of a frame entry. */
export const enum Validity {
  Missing = 0,
  Valid = 1,
  /** Present but NaN/∞ or flagged invalid by its source. */
  Invalid = 2,
}

/**
 * One step's signals. `values[i]` (booleans as 0/1), `stamps[i]` the sample's own timestamp (s),
 * `validity[i]` and `sources[i]` (a short source id such as 'so101.load' or 'mocap').
 */
export class SignalFrame {
  readonly values = new Float64Array(SIGNAL_COUNT);
  readonly stamps = new Float64Array(SIGNAL_COUNT).fill(-Infinity);
  readonly validity = new Uint8Array(SIGNAL_COUNT);
  readonly sources: string[] = new Array<string>(SIGNAL_COUNT).fill('');
  /** Time of the step this frame describes (s). */
  t = 0;

  set(index: number, value: number, stamp: number, source: string): void {
    this.values[index] = value;
    this.stamps[index] = stamp;
    this.validity[index] = Number.isFinite(value) ? Validity.Valid : Validity.Invalid;
    this.sources[index] = source;
  }
  setByName(name: SignalName, value: number, stamp: number, source: string): void {
    this.set(indexByName.get(name) ?? -1, value, stamp, source);
  }
  get(name: SignalName): number {
    return this.values[indexByName.get(name) ?? -1] ?? NaN;
  }
  /**
   * Integer ns since the sample was taken, at time `now` (s): both times are rounded to ns before
   * subtracting, so a sample exactly max-age old is exactly max-age old (src/util/time.ts).
   */
  ageNs(index: number, now: number): number {
    return secondsToNs(now) - secondsToNs(this.stamps[index] ?? -Infinity);
  }
  clear(): void {
    this.values.fill(0);
    this.stamps.fill(-Infinity);
    this.validity.fill(Validity.Missing);
    this.sources.fill('');
  }
  copyFrom(other: SignalFrame): void {
    this.values.set(other.values);
    this.stamps.set(other.stamps);
    this.validity.set(other.validity);
    for (let i = 0; i < SIGNAL_COUNT; i++) this.sources[i] = other.sources[i] ?? '';
    this.t = other.t;
  }
}
