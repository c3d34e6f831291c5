/**
 * Versioned JSON payloads of the MQTT interface (schema v1), validated on receipt. A payload that
 * fails validation is refused with the field that is wrong and what was expected.
 */
import type { Result } from '../util/result.js';

export const PAYLOAD_VERSION = 1;

export type GateStateName = 'armed' | 'warning' | 'filtering' | 'hold';

export interface MarginsPayload {
  v: 1;
  robot: string;
  t: number;
  /** ρ/|τ| per active clause (≥ 0 satisfied); null when the clause has no value yet. */
  margins: Record<string, number | null>;
  /** The soft band ε per clause (normalised). */
  band: Record<string, number>;
}
/** One latched e-stop in the gate state: who pressed it, when (armguard's clock) and the press id it came with. */
export interface EStopLatchPayload {
  by: string;
  t: number;
  id?: string;
}
export interface GatePayload {
  v: 1;
  robot: string;
  t: number;
  state: GateStateName;
  cause: string;
  /**
   * The e-stop latch (added in schema v1 without a version bump; absent from older armguards):
   * latched while any e-stop is, with who pressed each. An e-stop is done when its press id (or
   * presser) appears here, not when the broker acknowledged the publish.
   */
  estop?: { latched: boolean; pressed: EStopLatchPayload[] };
}
export interface EventPayload {
  v: 1;
  robot: string;
  t: number;
  kind: string;
  detail: string;
}
export interface EpisodePayload {
  v: 1;
  robot: string;
  t: number;
  phase: 'start' | 'end';
  episode: string;
  task?: string;
  policy?: string;
}

export interface EstopCommand {
  v: 1;
  reason?: string;
  /** The sender's id for this press; the gate state lists it once the e-stop is latched. */
  id?: string;
}
/** Clear one latched e-stop, naming who pressed it (its `by` in the gate state, or its press id). */
export interface EstopResetCommand {
  v: 1;
  pressedBy: string;
  note?: string;
}
export interface ReleaseCommand {
  v: 1;
  note?: string;
}
export interface LabelCommand {
  v: 1;
  episode?: string;
  success?: boolean;
  task?: string;
  /** Clauses judged violated from video (manual labels). */
  manualViolations?: string[];
  note?: string;
}
export interface HeartbeatCommand {
  v: 1;
  seq: number;
}

type Json = Record<string, unknown>;

function parseObject(bytes: Uint8Array | string): Result<Json, string> {
  let value: unknown;
  try {
    value = JSON.parse(typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes));
  } catch (e) {
    return { ok: false, error: `payload is not JSON (${(e as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'payload must be a JSON object' };
  const v = (value as Json).v;
  if (v !== PAYLOAD_VERSION)
    return { ok: false, error: `field 'v': expected ${PAYLOAD_VERSION}, got ${JSON.stringify(v)}` };
  return { ok: true, value: value as Json };
}

function optString(o: Json, field: string, max = 1000): string | undefined | Error {
  const v = o[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > max)
    return new Error(`field '${field}': expected a string of at most ${max} characters`);
  return v;
}

function onlyFields(o: Json, allowed: readonly string[]): string | undefined {
  for (const k of Object.keys(o))
    if (!allowed.includes(k)) return `unknown field '${k}' (allowed: ${allowed.join(', ')})`;
  return undefined;
}

export function parseEstop(bytes: Uint8Array | string): Result<EstopCommand, string> {
  const p = parseObject(bytes);
  if (!p.ok) return p;
  const extra = onlyFields(p.value, ['v', 'reason', 'id']);
  if (extra) return { ok: false, error: extra };
  const reason = optString(p.value, 'reason');
  if (reason instanceof Error) return { ok: false, error: reason.message };
  const id = optString(p.value, 'id', 128);
  if (id instanceof Error) return { ok: false, error: id.message };
  return {
    ok: true,
    value: { v: 1, ...(reason !== undefined ? { reason } : {}), ...(id !== undefined ? { id } : {}) },
  };
}

export function parseEstopReset(bytes: Uint8Array | string): Result<EstopResetCommand, string> {
  const p = parseObject(bytes);
  if (!p.ok) return p;
  const extra = onlyFields(p.value, ['v', 'pressedBy', 'note']);
  if (extra) return { ok: false, error: extra };
  const pressedBy = optString(p.value, 'pressedBy');
  if (pressedBy instanceof Error) return { ok: false, error: pressedBy.message };
  if (pressedBy === undefined || pressedBy === '')
    return {
      ok: false,
      error: "field 'pressedBy': expected who pressed the e-stop (its 'by' in the gate state, or its press id)",
    };
  const note = optString(p.value, 'note');
  if (note instanceof Error) return { ok: false, error: note.message };
  return { ok: true, value: { v: 1, pressedBy, ...(note !== undefined ? { note } : {}) } };
}

export function parseRelease(bytes: Uint8Array | string): Result<ReleaseCommand, string> {
  const p = parseObject(bytes);
  if (!p.ok) return p;
  const extra = onlyFields(p.value, ['v', 'note']);
  if (extra) return { ok: false, error: extra };
  const note = optString(p.value, 'note');
  if (note instanceof Error) return { ok: false, error: note.message };
  return { ok: true, value: { v: 1, ...(note !== undefined ? { note } : {}) } };
}

export function parseLabel(bytes: Uint8Array | string): Result<LabelCommand, string> {
  const p = parseObject(bytes);
  if (!p.ok) return p;
  const o = p.value;
  const extra = onlyFields(o, ['v', 'episode', 'success', 'task', 'manualViolations', 'note']);
  if (extra) return { ok: false, error: extra };
  const out: LabelCommand = { v: 1 };
  for (const f of ['episode', 'task', 'note'] as const) {
    const s = optString(o, f);
    if (s instanceof Error) return { ok: false, error: s.message };
    if (s !== undefined) out[f] = s;
  }
  if (o.success !== undefined) {
    if (typeof o.success !== 'boolean') return { ok: false, error: `field 'success': expected true or false` };
    out.success = o.success;
  }
  if (o.manualViolations !== undefined) {
    const m = o.manualViolations;
    if (!Array.isArray(m) || m.some((x) => typeof x !== 'string' || !/^[a-z_]{1,64}$/.test(x))) {
      return { ok: false, error: `field 'manualViolations': expected an array of clause names` };
    }
    out.manualViolations = m as string[];
  }
  if (
    out.success === undefined &&
    out.manualViolations === undefined &&
    out.task === undefined &&
    out.note === undefined
  ) {
    return { ok: false, error: 'a label needs at least one of success, manualViolations, task, note' };
  }
  return { ok: true, value: out };
}

export function parseHeartbeat(bytes: Uint8Array | string): Result<HeartbeatCommand, string> {
  const p = parseObject(bytes);
  if (!p.ok) return p;
  const extra = onlyFields(p.value, ['v', 'seq']);
  if (extra) return { ok: false, error: extra };
  const seq = p.value.seq;
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0)
    return { ok: false, error: `field 'seq': expected a non-negative integer` };
  return { ok: true, value: { v: 1, seq } };
}
