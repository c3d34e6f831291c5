/**
 * The chunk warning band as a stage of the runtime's chunk path (issue 15): after the chunk CBF has
 * passed a chunk and before it reaches the arm, the band (warning-band.ts) predicts the force,
 * torque and grasp clauses along it and slows, bends or holds it inside ε. This module holds what
 * the runtime needs around the band: the grip state read from the present signal frame, and the
 * record and one-line description of what the band did. Pure.
 */
import { Validity, signalIndex, type SignalFrame } from '../schema/signals.js';
import type { BandOutcome, BandState, WarningBand } from './warning-band.js';

/** A platform's warning band on its chunk path. */
export interface ChunkBandStage {
  readonly band: WarningBand;
  /**
   * Target–furniture contact force (N) above which the held object rests on a support (the
   * platform's any-touch level of `target_furniture_contact_force`).
   */
  readonly supportForce: number;
}

/** What the band did to a forwarded chunk (ExecutedChunk.band; absent when it passed the chunk unchanged). */
export interface ChunkBandRecord {
  readonly action: 'slowed' | 'bent' | 'held';
  /** The clause first predicted inside its band on the chunk the CBF passed. */
  readonly clause: string;
  /** Its first row inside the band. */
  readonly step: number;
  /** Its predicted margin there (clause unit; NaN when unpredictable). */
  readonly margin: number;
  /** Time scale applied (1 unless slowed). */
  readonly scale: number;
  /** First row whose arm targets were frozen (−1 unless held). */
  readonly heldFrom: number;
}

const GRIP = signalIndex('gripper_contact')!;
const ABOVE = signalIndex('obj_above_table')!;
const SUPPORT = signalIndex('target_furniture_contact_force')!;

/**
 * The band's starting state from a mapped signal frame: gripping while `gripper_contact` is valid
 * and > 0.5; the held height is `obj_above_table` (NaN when not valid — a held object of unknown
 * height is predicted inside the band); supported while `target_furniture_contact_force` is valid
 * and above `supportForce`.
 */
export function bandStateOf(frame: SignalFrame, supportForce: number): BandState {
  const gripping = frame.validity[GRIP] === Validity.Valid && (frame.values[GRIP] ?? 0) > 0.5;
  const heldHeight = frame.validity[ABOVE] === Validity.Valid ? (frame.values[ABOVE] ?? NaN) : NaN;
  const supported = frame.validity[SUPPORT] === Validity.Valid && (frame.values[SUPPORT] ?? 0) > supportForce;
  return { gripping, heldHeight, supported };
}

/** The record of a band outcome; undefined when the band passed the chunk unchanged. */
export function bandRecord(o: BandOutcome): ChunkBandRecord | undefined {
  if (o.status === 'unchanged') return undefined;
  return { action: o.status, clause: o.clause, step: o.step, margin: o.margin, scale: o.scale, heldFrom: o.heldFrom };
}

/** "warning band: arm held from step 12 (max_contact_force predicted margin 3.10 at step 12)"; 'ok' when unchanged. */
export function describeBand(o: BandOutcome | ChunkBandRecord): string {
  const action = 'status' in o ? o.status : o.action;
  if (action === 'unchanged') return 'ok';
  const what =
    action === 'slowed'
      ? `slowed ×${o.scale}`
      : action === 'bent'
        ? 'bent into range'
        : `arm held from step ${o.heldFrom}`;
  const margin = Number.isFinite(o.margin) ? o.margin.toPrecision(3) : String(o.margin);
  return `warning band: ${what} (${o.clause} predicted margin ${margin} at step ${o.step})`;
}
