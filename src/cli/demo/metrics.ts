/**
 * Per-mode demo metrics (issue 15), shared by every demo scenario (the default pilot, the
 * fragile-obstacle scenario): success and safety counts, how much the gate changed the policy's
 * chunks, how smooth the executed motion was, and how long the filter took. One set per gate mode,
 * never pooled across modes; `--json` prints them under the keys of {@link DemoModeStats}.
 *
 * Definitions (the same for every scenario):
 * - modification of a chunk: ‖U − U_nom‖ (Frobenius norm over the chunk's steps and arm joints,
 *   rad) of an executed chunk against the policy's nominal chunk; held chunks are not counted.
 *   `mean_modification` is the mean over executed chunks.
 * - jerk: mean squared jerk of the executed joint targets, Σ_j (Δ³q_j / dt³)² averaged over the
 *   ticks that have three predecessors (rad²/s⁶), per episode; the mode's figure is the mean over
 *   its episodes.
 * - reversals_per_s: sign reversals of the correction c = u − u_nom per arm joint, counted where
 *   both neighbouring corrections exceed {@link REVERSAL_DEADBAND} in magnitude, summed over joints,
 *   per second of executed motion; mean over episodes.
 * - filter_ms_p50 / p99: over every filter call of the mode (null when the mode does not filter).
 */
import { quantile } from '../../report/metrics/quantile.js';

/** Gate modes of the demo: baseline, monitors + hold, chunk CBF + hold, action-wise CBF (Eq. A.2). */
export type DemoMode = 'off' | 'hold' | 'cbf' | 'stepwise';
export const DEMO_MODES: readonly DemoMode[] = ['off', 'hold', 'cbf', 'stepwise'];
/** What the default demo runs. */
export const DEFAULT_DEMO_MODES: readonly DemoMode[] = ['off', 'hold', 'cbf'];

/** Corrections smaller than this (rad) have no sign for the reversal count. */
export const REVERSAL_DEADBAND = 1e-4;

/** One mode's (or one policy-in-a-mode's) figures; the key names are the `--json` output's. */
export interface DemoModeStats {
  episodes: number;
  successes: number;
  /** Episodes in which some safe-tier clause was violated. */
  unsafe: number;
  unsafe_successes: number;
  /** Episodes in which the arm touched an obstacle (a bystander / the fragile object). */
  obstacle_contacts: number;
  /** Episodes the gate held. */
  holds: number;
  mean_modification: number | null;
  jerk: number | null;
  reversals_per_s: number | null;
  filter_ms_p50: number | null;
  filter_ms_p99: number | null;
}

/** What one episode contributes to its mode's figures. */
export interface EpisodeMetrics {
  readonly policy: string;
  readonly mode: DemoMode;
  readonly success: boolean;
  readonly unsafe: boolean;
  readonly obstacleContact: boolean;
  readonly held: boolean;
  /** ‖U − U_nom‖ of every executed chunk (rad). */
  readonly modifications: readonly number[];
  readonly jerk: number;
  readonly reversalsPerS: number;
  /** Wall time of every filter call (ms); empty when the mode does not filter. */
  readonly filterMs: readonly number[];
}

/** ‖U − U_nom‖ over the first `armJoints` columns of two H × n chunks (row-major). */
export function chunkModification(
  executed: ArrayLike<number>,
  nominal: ArrayLike<number>,
  joints: number,
  armJoints: number,
): number {
  let sum = 0;
  const rows = Math.floor(nominal.length / joints);
  for (let k = 0; k < rows; k++) {
    for (let j = 0; j < armJoints; j++) {
      const d = (executed[k * joints + j] ?? NaN) - (nominal[k * joints + j] ?? NaN);
      sum += d * d;
    }
  }
  return Math.sqrt(sum);
}

/** Mean squared jerk of a T × n target sequence (row-major) at period dt; NaN with fewer than 4 rows. */
export function meanSquaredJerk(rows: ArrayLike<number>, n: number, dt: number): number {
  const T = Math.floor(rows.length / n);
  if (T < 4) return NaN;
  let sum = 0;
  const dt3 = dt * dt * dt;
  for (let t = 3; t < T; t++) {
    let sq = 0;
    for (let j = 0; j < n; j++) {
      const at = (k: number): number => rows[k * n + j] ?? NaN;
      const d3 = (at(t) - 3 * at(t - 1) + 3 * at(t - 2) - at(t - 3)) / dt3;
      sq += d3 * d3;
    }
    sum += sq;
  }
  return sum / (T - 3);
}

/**
 * Sign reversals per second of a T × n correction sequence (row-major) at period dt: per joint, a
 * reversal is consecutive corrections of opposite sign, both larger than `deadband` in magnitude.
 */
export function correctionReversalsPerSecond(
  corrections: ArrayLike<number>,
  n: number,
  dt: number,
  deadband = REVERSAL_DEADBAND,
): number {
  const T = Math.floor(corrections.length / n);
  if (T < 1) return NaN;
  let count = 0;
  for (let j = 0; j < n; j++) {
    for (let t = 1; t < T; t++) {
      const a = corrections[(t - 1) * n + j] ?? 0;
      const b = corrections[t * n + j] ?? 0;
      if (Math.abs(a) > deadband && Math.abs(b) > deadband && Math.sign(a) !== Math.sign(b)) count++;
    }
  }
  return count / (T * dt);
}

/**
 * Collects one episode's executed targets and corrections tick by tick (arm joints only) and
 * turns them into its jerk and reversal figures.
 */
export class ExecutedMotion {
  private readonly targets: number[] = [];
  private readonly corrections: number[] = [];

  constructor(
    readonly armJoints: number,
    readonly dt: number,
  ) {}

  /** The tick's commanded targets and, when a chunk is playing, the policy's nominal row for it. */
  push(executed: ArrayLike<number>, nominal: ArrayLike<number> | null): void {
    for (let j = 0; j < this.armJoints; j++) this.targets.push(executed[j] ?? NaN);
    if (nominal)
      for (let j = 0; j < this.armJoints; j++) this.corrections.push((executed[j] ?? NaN) - (nominal[j] ?? NaN));
  }

  get jerk(): number {
    return meanSquaredJerk(this.targets, this.armJoints, this.dt);
  }

  get reversalsPerS(): number {
    return this.corrections.length === 0 ? 0 : correctionReversalsPerSecond(this.corrections, this.armJoints, this.dt);
  }
}

const mean = (xs: readonly number[]): number | null => {
  const finite = xs.filter(Number.isFinite);
  return finite.length === 0 ? null : finite.reduce((a, b) => a + b, 0) / finite.length;
};
const q = (xs: readonly number[], p: number): number | null => (xs.length === 0 ? null : quantile(xs, p));

/** The figures of a set of episodes (all of one mode, or one policy in one mode). */
export function modeStats(episodes: readonly EpisodeMetrics[]): DemoModeStats {
  const filterMs = episodes.flatMap((e) => e.filterMs);
  return {
    episodes: episodes.length,
    successes: episodes.filter((e) => e.success).length,
    unsafe: episodes.filter((e) => e.unsafe).length,
    unsafe_successes: episodes.filter((e) => e.unsafe && e.success).length,
    obstacle_contacts: episodes.filter((e) => e.obstacleContact).length,
    holds: episodes.filter((e) => e.held).length,
    mean_modification: mean(episodes.flatMap((e) => e.modifications)),
    jerk: mean(episodes.map((e) => e.jerk)),
    reversals_per_s: mean(episodes.map((e) => e.reversalsPerS)),
    filter_ms_p50: q(filterMs, 0.5),
    filter_ms_p99: q(filterMs, 0.99),
  };
}

/** The `--json` document: figures per mode, and per policy per mode. Modes in `modes` order. */
export interface DemoJson {
  modes: Record<string, DemoModeStats>;
  policies: Record<string, Record<string, DemoModeStats>>;
}

export function demoJson(episodes: readonly EpisodeMetrics[], modes: readonly DemoMode[]): DemoJson {
  const out: DemoJson = { modes: {}, policies: {} };
  for (const m of modes) out.modes[m] = modeStats(episodes.filter((e) => e.mode === m));
  for (const p of [...new Set(episodes.map((e) => e.policy))]) {
    const row: Record<string, DemoModeStats> = {};
    for (const m of modes) row[m] = modeStats(episodes.filter((e) => e.mode === m && e.policy === p));
    out.policies[p] = row;
  }
  return out;
}

/**
 * `--modes a,b,c` → the modes in the given order, or an error naming the bad entry. `supported`
 * is what the scenario can run.
 */
export function parseModes(
  value: string | undefined,
  supported: readonly DemoMode[],
  fallback: readonly DemoMode[] = DEFAULT_DEMO_MODES,
): { ok: true; modes: DemoMode[] } | { ok: false; error: string } {
  if (value === undefined) return { ok: true, modes: fallback.filter((m) => supported.includes(m)) };
  const modes: DemoMode[] = [];
  for (const raw of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = supported.find((x) => x === raw);
    if (!m) return { ok: false, error: `--modes: unknown mode '${raw}' (this scenario runs ${supported.join(', ')})` };
    if (modes.includes(m)) return { ok: false, error: `--modes: '${raw}' given twice` };
    modes.push(m);
  }
  if (modes.length === 0) return { ok: false, error: '--modes names no mode' };
  return { ok: true, modes };
}

const fmtNum = (x: number | null, digits: number): string => (x === null ? '—' : x.toFixed(digits));

/**
 * The console headline: one column per mode, side by side (never pooled), one row per figure.
 * Safety = episodes without a violated safe-tier clause.
 */
export function modeHeadlines(json: DemoJson): string[] {
  const modes = Object.keys(json.modes);
  const width = 14;
  const rows: [string, (s: DemoModeStats) => string][] = [
    ['episodes', (s) => String(s.episodes)],
    [
      'Safety',
      (s) =>
        s.episodes === 0
          ? '—'
          : `${s.episodes - s.unsafe}/${s.episodes} (${Math.round((100 * (s.episodes - s.unsafe)) / s.episodes)}%)`,
    ],
    ['successes', (s) => `${s.successes}/${s.episodes}`],
    ['unsafe successes', (s) => String(s.unsafe_successes)],
    ['obstacle contacts', (s) => String(s.obstacle_contacts)],
    ['held episodes', (s) => String(s.holds)],
    ['mean ‖U−U_nom‖', (s) => fmtNum(s.mean_modification, 3)],
    ['jerk (rad²/s⁶)', (s) => fmtNum(s.jerk, 1)],
    ['reversals/s', (s) => fmtNum(s.reversals_per_s, 2)],
    ['filter p50 ms', (s) => fmtNum(s.filter_ms_p50, 2)],
    ['filter p99 ms', (s) => fmtNum(s.filter_ms_p99, 2)],
  ];
  const head = ['gate mode'.padEnd(18), ...modes.map((m) => m.padStart(width))].join('');
  return [
    head,
    ...rows.map(([label, f]) => [label.padEnd(18), ...modes.map((m) => f(json.modes[m]!).padStart(width))].join('')),
  ];
}
