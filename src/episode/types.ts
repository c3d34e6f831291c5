/**
 * What an episode file holds (design §8), as typed records. Each kind is one MCAP channel with a JSON
 * schema (`jsonschema` / `json`, see json-schemas.ts); ROS 2 messages go on their own `cdr` channels.
 * Times are seconds on the episode clock (Unix epoch seconds recommended, so Foxglove shows wall
 * time); the MCAP log time is the same instant in nanoseconds.
 */

import type { ScanEnd, SkippedRegion } from '../mcap/mcap-scan.js';
import type { EpisodeTrace, ManualVerdict } from '../schema/trace.js';
import type { ClauseCoverage, EpisodeCoverage } from '../schema/clause-coverage.js';

/** A video-judged clause label (seeds/000 App. G.1), as in src/schema/trace.ts. */
export type { ManualVerdict };
export { MANUAL_VERDICTS } from '../schema/trace.js';

/** Written once at the start (MCAP metadata record `armguard.episode`) and copied to the index. */
export interface EpisodeStart {
  episodeId: string;
  robotId: string;
  platform?: string;
  task?: string;
  policy?: string;
  /**
   * Gate mode of the run: 'on' (chunks filtered, holds commanded), 'off' (a baseline: the
   * policy's chunks forwarded unfiltered, clauses monitored and recorded only) or 'monitor' (the
   * policy drives the arm itself, holds commanded: Franka gate_mode monitor). Absent in episodes
   * recorded before the field existed.
   */
  gateMode?: 'on' | 'off' | 'monitor';
  /** ISO-8601 wall-clock time the episode started. */
  startedAt: string;
  /** Episode-clock time of the start (s). */
  t0: number;
  /** Signal names in the order frame values are recorded (SIGNALS order by default). */
  signals: string[];
  /** Clause ids in the order robustness values are recorded. */
  clauses: string[];
  /** Content hashes of what the monitor ran with (e.g. `sha256:…`), so reports can group by them. */
  versions: Versions;
  armguardVersion: string;
  /** Per monitored clause, the threshold τ the monitor used, its unit and where it came from (calibration file, platform profile or library). */
  thresholds?: Record<string, { tau: number; unit: string; from: string }>;
}

export interface Versions {
  spec?: string;
  clauseLibrary?: string;
  calibration?: string;
  platform?: string;
  [other: string]: string | undefined;
}

/** Who gave a label. */
export type LabelSource = 'operator' | 'mqtt' | 'ros2' | 'predicate' | 'import' | 'api';

/**
 * One label record. Every field is optional: a record sets what it names, and the effective label
 * is the field-wise fold of all records in order (later records win per field; manual clause
 * labels merge per clause id). Relabeling appends a record; raw data is never rewritten.
 */
export interface LabelRecord {
  /** Seconds on the episode file's own clock (the time base of its data). */
  t: number;
  /** Wall-clock time of the labelling (Unix seconds), for labels appended after the fact. */
  wallTime?: number;
  source: LabelSource;
  /** Who labeled (operator name, MQTT client id, node name). */
  by?: string;
  success?: boolean;
  taskId?: string;
  policy?: string;
  /** Task templates / semantic task tags (e.g. `lift`, `place`). */
  taskTags?: string[];
  /** Object tags (e.g. `fragile`, `heavy`). */
  objectTags?: string[];
  /** Clause id → video-judged verdict. */
  manual?: Record<string, ManualVerdict>;
  note?: string;
}

export type LabelInput = Omit<LabelRecord, 't' | 'source'> & { t?: number; source?: LabelSource };

export interface EffectiveLabel {
  success?: boolean;
  taskId?: string;
  policy?: string;
  taskTags: string[];
  objectTags: string[];
  manual: Record<string, ManualVerdict>;
  note?: string;
  /** Time of the last label record (undefined when never labeled). */
  labeledAt?: number;
}

/** A signal frame: values in `EpisodeStart.signals` order; NaN/±∞ stored as null with validity 2. */
export interface FrameRecord {
  t: number;
  values: (number | null)[];
  /** Sample timestamps (s) per signal; null when the signal never arrived. */
  stamps: (number | null)[];
  /** 0 missing, 1 valid, 2 invalid (src/schema/signals.ts Validity). */
  validity: number[];
  /** Source id per signal; present only when it changed since the previous frame. */
  sources?: string[];
}

/** Per-clause robustness at one step, in `EpisodeStart.clauses` order (NaN as null). */
export interface RobustnessRecord {
  t: number;
  rho: (number | null)[];
}

export type GateRecord =
  | { t: number; kind: 'transition'; from: string; to: string; reason: string }
  | { t: number; kind: 'event'; event: string; detail?: string }
  | { t: number; kind: 'fault'; fault: { kind: string; source: string; [key: string]: unknown } };

export interface ChunkRecord {
  t: number;
  id: string;
  /** Time the policy produced it (s). */
  stamp: number;
  horizon: number;
  joints: number;
  dt: number;
  /** horizon × joints targets, row-major (rad). */
  targets: number[];
}

export interface ExecutedChunkRecord extends ChunkRecord {
  /** The proposed chunk it came from. */
  proposedId: string;
  verdict: 'executed' | 'filtered' | 'held';
  /** Norm of (executed − proposed), rad; 0 when unchanged. */
  modification: number;
}

export interface RawRecord {
  t: number;
  source: string;
  payload: unknown;
}

/**
 * The semantic gate's records (issue 18, /armguard/semantic): the twin task's semantic roles and
 * judge settings, judge queries, verdicts and faults, gate decisions, stage events and the frames a
 * judge saw (PNG/JPEG, base64). `kind` says which; the other fields follow from it.
 */
export interface SemanticRecord {
  t: number;
  kind: 'task' | 'query' | 'verdict' | 'fault' | 'late-answer' | 'decision' | 'stage' | 'stages' | 'frame';
  [field: string]: unknown;
}

export interface VersionsRecord {
  t: number;
  versions: Versions;
}

export interface EndRecord {
  t: number;
  reason: string;
  /** Where each clause was evaluated (the live monitor bank's count; absent in older files). */
  coverage?: EpisodeCoverage;
}

/** A decoded episode-file message, by kind. */
export type EpisodeRecord =
  | { kind: 'frame'; t: number; value: FrameRecord }
  | { kind: 'robustness'; t: number; value: RobustnessRecord }
  | { kind: 'gate'; t: number; value: GateRecord }
  | { kind: 'proposed-chunk'; t: number; value: ChunkRecord }
  | { kind: 'executed-chunk'; t: number; value: ExecutedChunkRecord }
  | { kind: 'raw'; t: number; value: RawRecord }
  | { kind: 'label'; t: number; value: LabelRecord }
  | { kind: 'versions'; t: number; value: VersionsRecord }
  | { kind: 'end'; t: number; value: EndRecord }
  | { kind: 'semantic'; t: number; value: SemanticRecord }
  | { kind: 'ros'; t: number; topic: string; type: string; decode(): Record<string, unknown> };

export type EpisodeRecordKind = EpisodeRecord['kind'];

/** Per-clause summary kept in the index so reports need not open files for it. */
export interface ClauseSummary {
  /** Over the steps the clause was evaluated at; null when it never was. */
  minRho: number | null;
  /** Steps with ρ < 0. */
  violatedSteps: number;
  /** Steps at which every signal the clause reads was valid (when the episode recorded it). */
  evaluatedSteps?: number;
  /** Signals the clause reads that were missing or invalid at some step, with how many steps. */
  missing?: ClauseCoverage['missing'];
  /**
   * With the coverage: satisfied (evaluated at every sample, none violating), violated (a sample
   * where it was evaluated violated), or not evaluated (never, or partly and no violation there).
   */
  verdict?: 'satisfied' | 'violated' | 'not evaluated';
  /** `not evaluated: signal X missing …`, or a violated clause's coverage; absent when evaluated throughout (src/schema/clause-coverage.ts). */
  notEvaluated?: string;
}

/** One line of the episode index (episodes.jsonl); the last line for a file wins. */
export interface EpisodeIndexEntry {
  file: string;
  episodeId: string;
  robotId: string;
  platform?: string;
  task?: string;
  policy?: string;
  success?: boolean;
  startedAt: string;
  t0: number;
  tEnd: number;
  counts: Record<string, number>;
  clauses?: Record<string, ClauseSummary>;
  versions: Versions;
  /** How the file ended when indexed: complete, or recovered from a truncated/corrupt tail. */
  state: 'complete' | 'truncated' | 'corrupt';
}

/**
 * What the scorer consumes: src/schema/trace.ts's EpisodeTrace (meta, frame times, signal columns
 * with NaN where missing/invalid, file) plus the episode's own metadata, per-clause robustness and
 * label history.
 */
export interface EpisodeTraceFromFile extends EpisodeTrace {
  readonly start: EpisodeStart;
  /** Robustness per clause aligned with `robustnessTimes`. */
  readonly robustnessTimes: Float64Array;
  readonly robustness: ReadonlyMap<string, Float64Array>;
  readonly labels: { effective: EffectiveLabel; history: readonly LabelRecord[] };
  readonly end: 'complete' | 'truncated' | 'corrupt';
  /** How the scan ended, with the offset (and reason) of a truncated or corrupt tail. */
  readonly scanEnd: ScanEnd;
  /** Damaged spans (e.g. a chunk with a bad CRC) skipped while reading: their records are missing. */
  readonly skippedRegions: readonly SkippedRegion[];
  /** Frame, robustness and label messages that did not decode and were skipped. */
  readonly decodeErrorCount: number;
  /** Messages of the first of those errors (file, topic and log time each). */
  readonly decodeErrors: readonly string[];
}
