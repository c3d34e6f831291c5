/**
 * Untrusted chunk payloads (MQTT JSON, test clients) → GateChunk, or a rejection naming the field
 * and what was expected. Never throws. Size checks against the arm happen in ChunkScreen.
 */
import type { Result } from '../util/result.js';
import { err, ok } from '../util/result.js';
import type { ChunkMessage, ChunkRejection, GateChunk } from './chunk.js';

export const MAX_CHUNK_BYTES = 1 << 20;
export const MAX_HORIZON = 1000;
export const MAX_JOINTS = 32;
export const MAX_ID_LENGTH = 128;

const bad = (field: string, expected: string) => err<ChunkRejection>({ code: 'malformed', field, expected });

/** Parse a JSON text. */
export function parseChunkText(text: string): Result<GateChunk, ChunkRejection> {
  if (text.length > MAX_CHUNK_BYTES) return bad('(payload)', `at most ${MAX_CHUNK_BYTES} bytes, got ${text.length}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return bad('(payload)', `JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  return parseChunkMessage(value);
}

/** Validate a decoded message `{v:1, id, stamp, horizon, joints, dt, targets: number[][]}`. */
export function parseChunkMessage(value: unknown): Result<GateChunk, ChunkRejection> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('(payload)', 'a JSON object');
  const m = value as Record<string, unknown>;
  if (m.v !== 1) return bad('v', 'protocol version 1');
  const { id, stamp, horizon, joints, dt, targets } = m;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH)
    return bad('id', `a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  if (typeof stamp !== 'number' || !Number.isFinite(stamp)) return bad('stamp', 'a finite number (s)');
  if (!isCount(horizon, MAX_HORIZON)) return bad('horizon', `an integer in 1..${MAX_HORIZON}`);
  if (!isCount(joints, MAX_JOINTS)) return bad('joints', `an integer in 1..${MAX_JOINTS}`);
  if (typeof dt !== 'number' || !(dt > 0) || !Number.isFinite(dt)) return bad('dt', 'a finite step period > 0 (s)');
  if (!Array.isArray(targets)) return bad('targets', 'an array of horizon rows');
  if (targets.length !== horizon)
    return err({ code: 'mis-sized', field: 'targets', expected: horizon, got: targets.length });
  const out = new Float64Array(horizon * joints);
  for (let k = 0; k < horizon; k++) {
    const row: unknown = targets[k];
    if (!Array.isArray(row)) return bad(`targets[${k}]`, `an array of ${joints} numbers`);
    if (row.length !== joints)
      return err({ code: 'mis-sized', field: `targets[${k}]`, expected: joints, got: row.length });
    for (let j = 0; j < joints; j++) {
      const x: unknown = row[j];
      // JSON encodes NaN/∞ as null: that is a non-finite target, not a syntax problem.
      if (x === null) return err({ code: 'non-finite', step: k, joint: j });
      if (typeof x !== 'number') return bad(`targets[${k}][${j}]`, 'a number (rad)');
      out[k * joints + j] = x;
    }
  }
  return ok({ id, stamp, horizon, joints, dt, targets: out });
}

function isCount(x: unknown, max: number): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 1 && x <= max;
}

/** Encode a chunk as its wire message (used by clients and tests). */
export function chunkToMessage(c: GateChunk): ChunkMessage {
  const targets: number[][] = [];
  for (let k = 0; k < c.horizon; k++) targets.push(Array.from(c.targets.subarray(k * c.joints, (k + 1) * c.joints)));
  return { v: 1, id: c.id, stamp: c.stamp, horizon: c.horizon, joints: c.joints, dt: c.dt, targets };
}
