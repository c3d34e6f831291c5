/**
 * The VLA chunk interface (design §7): what a policy proposes and what it gets back. Wire shapes are
 * JSON; the in-memory chunk is src/schema/chunk.ts's (also the ports' `JointChunk`).
 */

import type { ChunkBandRecord } from './band-stage.js';

/** The in-memory chunk (src/schema/chunk.ts), as the gate names it. */
export type { JointChunk as GateChunk } from '../schema/chunk.js';

/** Chunk in, as JSON: `{v:1, id, stamp, horizon, joints, dt, targets: number[][]}`. */
export interface ChunkMessage {
  v: 1;
  id: string;
  stamp: number;
  horizon: number;
  joints: number;
  dt: number;
  targets: number[][];
}

export type ChunkVerdict = 'executed' | 'filtered' | 'held' | 'rejected';

/** Why a chunk was rejected (never forwarded). */
export type ChunkRejection =
  | { code: 'malformed'; field: string; expected: string }
  | { code: 'mis-sized'; field: string; expected: number; got: number }
  | { code: 'non-finite'; step: number; joint: number }
  | { code: 'beyond-limits'; step: number; joint: number; value: number; min: number; max: number }
  | { code: 'stale'; age: number; maxAge: number }
  | { code: 'from-future'; ahead: number; tolerance: number }
  | { code: 'duplicate-id'; id: string }
  | { code: 'out-of-order'; stamp: number; lastStamp: number };

/** What happened to a chunk. `targets` only for executed/filtered: exactly what went to the arm. */
export interface ExecutedChunk {
  readonly id: string;
  readonly verdict: ChunkVerdict;
  /** Machine-readable: rejection code, hold cause kind, or 'ok' / 'filtered'. */
  readonly code: string;
  readonly reason: string;
  readonly targets?: Float64Array;
  /** Σ ξ_k of the CBF solve (0 when unfiltered). */
  readonly slackUsed?: number;
  /** Max |u − u_nom| over the chunk (rad). */
  readonly modification?: number;
  /** Smallest barrier value h over the executed chunk's steps (m; ≥ 0). */
  readonly minH?: number;
  /** Largest shortfall of the barrier condition h(u_k) ≥ (1−γ)h(u_{k−1}) on the executed chunk (m; 0 = met). */
  readonly cbfViolation?: number;
  /** What the warning band did after the CBF (absent when it was not run or passed the chunk unchanged). */
  readonly band?: ChunkBandRecord;
}

/** Result out, as JSON. */
export interface ChunkResultMessage {
  v: 1;
  id: string;
  verdict: ChunkVerdict;
  code: string;
  reason: string;
  /** Gate time (s) at which the verdict was made. */
  t: number;
  targets?: number[][];
  slackUsed?: number;
  modification?: number;
  minH?: number;
  cbfViolation?: number;
  band?: ChunkBandRecord;
}

export function describeRejection(r: ChunkRejection): string {
  switch (r.code) {
    case 'malformed':
      return `malformed chunk: field '${r.field}': expected ${r.expected}`;
    case 'mis-sized':
      return `mis-sized chunk: field '${r.field}': expected ${r.expected}, got ${r.got}`;
    case 'non-finite':
      return `non-finite target at step ${r.step}, joint ${r.joint}`;
    case 'beyond-limits':
      return `target ${r.value} at step ${r.step}, joint ${r.joint} outside joint limits [${r.min}, ${r.max}]`;
    case 'stale':
      return `stale chunk: age ${r.age.toPrecision(3)} s > max ${r.maxAge} s`;
    case 'from-future':
      return `chunk stamped ${r.ahead.toPrecision(3)} s in the future (tolerance ${r.tolerance} s)`;
    case 'duplicate-id':
      return `duplicate chunk id '${r.id}'`;
    case 'out-of-order':
      return `out-of-order chunk: stamp ${r.stamp} not after the last accepted ${r.lastStamp}`;
  }
}

export function toResultMessage(r: ExecutedChunk, t: number, joints: number): ChunkResultMessage {
  const msg: ChunkResultMessage = { v: 1, id: r.id, verdict: r.verdict, code: r.code, reason: r.reason, t };
  if (r.targets) {
    const rows: number[][] = [];
    for (let k = 0; k * joints < r.targets.length; k++)
      rows.push(Array.from(r.targets.subarray(k * joints, (k + 1) * joints)));
    msg.targets = rows;
  }
  if (r.slackUsed !== undefined) msg.slackUsed = r.slackUsed;
  if (r.modification !== undefined) msg.modification = r.modification;
  if (r.minH !== undefined && Number.isFinite(r.minH)) msg.minH = r.minH;
  if (r.cbfViolation !== undefined) msg.cbfViolation = r.cbfViolation;
  if (r.band !== undefined) msg.band = r.band;
  return msg;
}
