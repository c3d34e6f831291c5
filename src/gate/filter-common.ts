/**
 * What every chunk filter (ChunkCbfFilter, StepwiseCbfFilter, HoldOnlyFilter) does the same way:
 * the configuration checks at construction, the shape check of a chunk before anything is computed
 * from it, the outcome object each filter owns, and how a refusal is written into it.
 */
import type { CbfOutcome } from './cbf-filter.js';

/** The per-joint limits every filter is configured with. */
export interface JointLimitConfig {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint speed limit (rad/s): one step of the chunk may move joint j by at most maxSpeed[j]·dt. */
  readonly maxSpeed: readonly number[];
}

/** Throws (naming the filter `who`) unless qmin, qmax and maxSpeed each have one entry per joint. */
export function checkJointLimits(who: string, config: JointLimitConfig, joints: number): void {
  for (const [name, arr] of [
    ['qmin', config.qmin],
    ['qmax', config.qmax],
    ['maxSpeed', config.maxSpeed],
  ] as const) {
    if (arr.length !== joints)
      throw new RangeError(`${who}: ${name} has ${arr.length} entries, the barrier model ${joints} joints`);
  }
}

/** Throws (naming the filter `who`) unless the CBF decay rate γ is in (0, 1]. */
export function checkGamma(who: string, gamma: number): void {
  if (!(gamma > 0 && gamma <= 1)) throw new RangeError(`${who}: gamma must be in (0, 1], got ${gamma}`);
}

/** A fresh outcome for a filter to own and overwrite on every call. */
export function newOutcome(): CbfOutcome {
  return {
    status: 'unchanged',
    targets: new Float64Array(0),
    slackUsed: 0,
    modification: 0,
    minH: Infinity,
    minHStep: -1,
    cbfViolation: 0,
    rounds: 0,
    iterations: 0,
    detail: '',
  };
}

/**
 * How every filter starts a chunk: the outcome back to its initial values with the nominal chunk as
 * targets, then the input check — a chunk of `horizon` steps has horizon × joints targets. Returns
 * true, with the refusal written into `o`, when it does not.
 */
export function startChunk(o: CbfOutcome, nominal: Float64Array, horizon: number, joints: number): boolean {
  o.targets = nominal;
  o.slackUsed = 0;
  o.modification = 0;
  o.minH = Infinity;
  o.minHStep = -1;
  o.cbfViolation = 0;
  o.rounds = 0;
  o.iterations = 0;
  o.detail = '';
  if (nominal.length === horizon * joints) return false;
  refuse(o, 'solver-failure', `chunk has ${nominal.length} targets, expected ${horizon}×${joints}`);
  return true;
}

/** Writes a refusal into the outcome: no targets, the status and why. */
export function refuse(o: CbfOutcome, status: 'unsafe' | 'solver-failure', detail: string): CbfOutcome {
  o.status = status;
  o.detail = detail;
  o.targets = EMPTY;
  return o;
}

const EMPTY = new Float64Array(0);

/** A number in a refusal's detail: 4 significant digits, or NaN / ±Infinity as such. */
export function fmt(x: number): string {
  return Number.isFinite(x) ? x.toPrecision(4) : String(x);
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
