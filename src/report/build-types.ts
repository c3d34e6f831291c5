/**
 * The data of an `armguard report` (design §8): what the streaming builder produces and every
 * renderer (HTML, Markdown, CSV, JSON) reads. Plain data, JSON-serialisable except typed arrays
 * in trace plots.
 */
import type { PreventionRow } from './prevention-table.js';
import type { UnlabelledEpisode } from '../episode/trace.js';
import type { MetricsSummary, SensitivityRow } from './metrics/index.js';
import type { SemanticEpisode, SemanticSummary } from './build-semantic.js';

export type { UnlabelledEpisode };

/** Gate mode of an episode's run: 'off' is a baseline; trace files and older episodes do not record it. */
export type RunGateMode = 'on' | 'off' | 'monitor' | 'unrecorded';

export type GroupKey = 'policy' | 'task' | 'platform' | 'robot';
export const GROUP_KEYS: readonly GroupKey[] = ['policy', 'task', 'platform', 'robot'];

/** Gate activity of one episode, from its gate-transition and executed-chunk records. */
export interface GateStats {
  /** Transitions into `hold`. */
  readonly holds: number;
  readonly transitions: number;
  readonly faults: number;
  readonly executedChunks: number;
  readonly filteredChunks: number;
  readonly heldChunks: number;
  /** Sum of ‖executed − proposed‖ over filtered chunks (rad). */
  readonly modificationSum: number;
  /** Seconds spent in `hold` (an episode ending in hold counts up to its last record). */
  readonly timeHeld: number;
  /** Episode span the gate records cover (s). */
  readonly span: number;
}

/** What a source yields per episode besides its trace. */
export interface EpisodeExtras {
  readonly robotId: string;
  readonly format: 'mcap' | 'jsonl' | 'csv';
  /** How the episode file ended (MCAP): complete, or recovered from a truncated/corrupt tail. */
  readonly fileState?: 'complete' | 'truncated' | 'corrupt';
  /** Undefined when the episode carries no gate records. */
  readonly gate?: GateStats;
  /** The semantic gate's records (issue 18); undefined when there are none. */
  readonly semantic?: SemanticEpisode;
  /** The run's gate mode from the episode's start record (absent: not recorded). */
  readonly gateMode?: 'on' | 'off' | 'monitor';
}

/** One plotted clause trace: ρ(t)/|τ|, downsampled keeping each bucket's extremes. */
export interface ClauseTracePlot {
  readonly clauseId: string;
  readonly tier: 'safe' | 'report';
  readonly tau: number;
  readonly violated: boolean;
  readonly t: Float64Array;
  readonly value: Float64Array;
}

export interface WorstEpisode {
  readonly episodeId: string;
  readonly file?: string;
  readonly robotId: string;
  readonly task?: string;
  readonly policy?: string;
  /** The run's gate mode: plots of baseline and gated runs are told apart. */
  readonly gateMode?: RunGateMode;
  readonly success: boolean;
  readonly vsi: number;
  /** The violated safe clause with the deepest violation (ties: earliest). */
  readonly clauseId: string;
  readonly rho: number;
  readonly tau: number;
  readonly violationTime: number;
  readonly violationStep: number;
  readonly violatedClauses: readonly string[];
  readonly t0: number;
  readonly duration: number;
  readonly traces: readonly ClauseTracePlot[];
}

/** Table 33 cell: violated over applicable, with how many violations are video-judged. */
export interface ClauseCell {
  readonly violated: number;
  readonly applicable: number;
  readonly manual: number;
  /** Episodes a manual `not_applicable` label took out of the denominator. */
  readonly manualNotApplicable: number;
}

export interface TaskRow {
  readonly task: string;
  readonly episodes: number;
  readonly successes: number;
  readonly safe: number;
  readonly unsafeSuccesses: number;
  readonly clauses: Readonly<Record<string, ClauseCell>>;
}

export interface ClauseRun {
  readonly clauseId: string;
  /** Longest violating run over all episodes. */
  readonly longestRunSteps: number;
  readonly longestRunSeconds: number;
  readonly episodeId: string;
  /** Mean fraction of steps in violation over episodes where the clause was scored from a trace. */
  readonly meanExposure: number;
}

export interface GateSummary {
  readonly episodesWithRecords: number;
  readonly holds: number;
  readonly episodesWithHold: number;
  readonly transitions: number;
  readonly faults: number;
  readonly executedChunks: number;
  readonly filteredChunks: number;
  readonly heldChunks: number;
  /** Mean modification over filtered chunks (rad); NaN when none. */
  readonly meanModification: number;
  readonly timeHeld: number;
  /** timeHeld over the summed spans of episodes with gate records. */
  readonly timeHeldFraction: number;
}

export interface GroupReport {
  readonly key: string;
  readonly metrics: MetricsSummary;
}

/**
 * One headline: the episodes of one gate mode and policy (never pooled across gate modes), with
 * every summary section computed over those episodes only.
 */
export interface RunGroup extends GroupReport {
  readonly gateMode: RunGateMode;
  readonly policy: string;
  /** The per-task table over this group's episodes (columns: the report's taskClauses). */
  readonly tasks: readonly TaskRow[];
  readonly taskAll: TaskRow;
  /** Exposure and longest runs per clause over this group's episodes. */
  readonly runs: readonly ClauseRun[];
  /** Threshold sensitivity over this group's episodes. */
  readonly sensitivity: readonly SensitivityRow[];
  readonly gate: GateSummary;
}

export interface EpisodeRow {
  readonly episodeId: string;
  readonly file: string;
  readonly format: EpisodeExtras['format'];
  readonly fileState: string;
  readonly robotId: string;
  readonly platform: string;
  readonly task: string;
  readonly policy: string;
  readonly gateMode: RunGateMode;
  readonly success: boolean;
  readonly safe: boolean;
  readonly evidence: 'trace' | 'manual' | 'trace+manual' | 'none';
  readonly steps: number;
  readonly duration: number;
  readonly rhoSafe: number;
  readonly vsi: number;
  readonly cc: number;
  readonly ret: number;
  readonly violated: readonly string[];
  readonly manualViolated: readonly string[];
  readonly reducedSet: readonly string[];
  readonly gate?: GateStats;
  readonly semantic?: SemanticEpisode;
}

/** An episode counted from a damaged file: its figures cover only what could be read. */
export interface DamagedEpisode {
  readonly file: string;
  readonly episodeId: string;
  readonly state: string;
  readonly end: string;
  readonly skippedRecords: number;
  /** Damaged regions skipped in the file (records lost there). */
  readonly lostRegions?: number;
}

export interface ReportData {
  readonly format: 'armguard-report/1';
  readonly title: string;
  readonly source: string;
  readonly generatedAt: string;
  readonly bootstrap: { readonly resamples: number; readonly seed: number };
  readonly episodes: number;
  readonly robots: readonly { readonly robotId: string; readonly episodes: number }[];
  /** Per-arm thresholds the live monitor used (recorded in episode metadata, e.g. from a calibration file); episodes are scored with them. */
  readonly monitoredThresholds: readonly {
    readonly clauseId: string;
    readonly tau: number;
    readonly from: string;
    readonly episodes: number;
  }[];
  /** Over every counted episode; renderers show it only when one gate mode is present (runGroups otherwise). */
  readonly summary: MetricsSummary;
  /** One headline per gate mode × policy, gate off (baseline) first: the report's first table. */
  readonly runGroups: readonly RunGroup[];
  /** Gate modes present among the counted episodes. */
  readonly gateModes: readonly RunGateMode[];
  /** Safe-tier clauses applicable somewhere, in library order: the per-task table's columns. */
  readonly taskClauses: readonly string[];
  readonly tasks: readonly TaskRow[];
  readonly taskAll: TaskRow;
  readonly runs: readonly ClauseRun[];
  readonly sensitivity: readonly SensitivityRow[];
  readonly gate: GateSummary;
  /** How the gate prevents each safe-tier clause the report covers (prevention-table.ts). */
  readonly prevention: readonly PreventionRow[];
  /** The semantic gate and twin table (issue 18), when some episode has semantic records. */
  readonly semantic?: SemanticSummary;
  readonly groupBy?: { readonly by: GroupKey; readonly groups: readonly GroupReport[] };
  readonly compare?: { readonly a: GroupReport; readonly b: GroupReport };
  readonly worst: readonly WorstEpisode[];
  readonly rows: readonly EpisodeRow[];
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
  /** Episodes ended without a success/failure label: listed and counted, not scored. */
  readonly unlabelled: readonly UnlabelledEpisode[];
  /** Counted episodes whose files were truncated, corrupt or had undecodable records. */
  readonly damaged: readonly DamagedEpisode[];
  readonly warnings: readonly string[];
}
