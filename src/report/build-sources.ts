/**
 * Episodes of a report directory, one at a time: armguard MCAP episode files (src/episode) and the
 * JSONL/CSV trace files `armguard score` reads. Gate statistics come from a second, filtered pass
 * over an MCAP file, skipped when the episode index says the file has no gate or chunk records.
 */
import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { INDEX_FILE_NAME, readEpisode, readEpisodeTrace, readIndex } from '../episode/index.js';
import { describeScanEnd, describeSkipped } from '../mcap/mcap-scan.js';
import type { EpisodeIndexEntry } from '../episode/types.js';
import { parseTraceText } from '../schema/trace-format.js';
import type { EpisodeTrace } from '../schema/trace.js';
import type { EpisodeDamage } from './build.js';
import { GateAccumulator } from './build-gate.js';
import { SemanticAccumulator } from './build-semantic.js';
import type { EpisodeExtras } from './build-types.js';

/** Robot id of episodes from trace files, which do not record one. */
export const UNRECORDED_ROBOT = '(unrecorded)';

export interface EpisodeInput {
  readonly trace: EpisodeTrace;
  readonly extras: EpisodeExtras & { readonly damage?: EpisodeDamage };
}

/** How many decode error messages an episode's damage keeps (the count covers all). */
const MAX_ERROR_MESSAGES = 10;

const EPISODE_FILE = /\.(mcap|jsonl|csv)$/i;

/** Episode files in `dir`, sorted by name (the episode index itself is not one). */
export async function listEpisodeFiles(dir: string): Promise<string[]> {
  const all = await readdir(dir);
  // A report written into the episode folder itself (--out <dir>) is not an episode.
  const ownReport = all.includes('summary.json') && all.includes('report.html');
  const names = all
    .filter((n) => EPISODE_FILE.test(n) && n !== INDEX_FILE_NAME && !(ownReport && n === 'episodes.csv'))
    .sort();
  return names.map((n) => join(dir, n));
}

export class EpisodeFileReader {
  private constructor(private readonly index: ReadonlyMap<string, EpisodeIndexEntry>) {}

  /** A reader for files of `dir`, using its episode index when there is one. */
  static async forDir(dir: string): Promise<EpisodeFileReader> {
    let index: ReadonlyMap<string, EpisodeIndexEntry> = new Map();
    try {
      index = await readIndex(join(dir, INDEX_FILE_NAME));
    } catch {
      // A damaged index only costs speed: every file gets its gate pass.
    }
    return new EpisodeFileReader(index);
  }

  /** Read one episode file; throws an Error naming the file when it cannot be read. */
  async read(file: string): Promise<EpisodeInput> {
    if (/\.mcap$/i.test(file)) return this.readMcap(file);
    const text = await readFile(file, 'utf8');
    const parsed = parseTraceText(text, file);
    if (!parsed.ok) {
      const more = parsed.error.length > 3 ? `; … and ${parsed.error.length - 3} more error(s)` : '';
      throw new Error(
        parsed.error
          .slice(0, 3)
          .map((e) => e.message)
          .join('; ') + more,
      );
    }
    return {
      trace: parsed.value,
      extras: { robotId: UNRECORDED_ROBOT, format: /\.csv$/i.test(file) ? 'csv' : 'jsonl' },
    };
  }

  private async readMcap(file: string): Promise<EpisodeInput> {
    const trace = await readEpisodeTrace(file, { file });
    const entry = this.index.get(basename(file));
    const hasGate = entry === undefined || (entry.counts['gate'] ?? 0) > 0 || (entry.counts['executed-chunk'] ?? 0) > 0;
    const hasSemantic = entry === undefined || (entry.counts['semantic'] ?? 0) > 0;
    const sem = hasSemantic ? new SemanticAccumulator(trace.start.t0) : undefined;
    let gate;
    let skippedRecords = trace.decodeErrorCount;
    const firstErrors = [...trace.decodeErrors];
    if (hasGate || hasSemantic) {
      const acc = new GateAccumulator(trace.start.t0);
      let tEnd = trace.times.length > 0 ? trace.times[trace.times.length - 1]! : trace.start.t0;
      const scan = await readEpisode(
        file,
        (r) => {
          if (r.kind === 'gate') acc.gate(r.value);
          else if (r.kind === 'executed-chunk') acc.chunk(r.value);
          else if (r.kind === 'end' && r.t > tEnd) tEnd = r.t;
          else if (r.kind === 'semantic') sem?.add(r.value);
        },
        { kinds: ['gate', 'executed-chunk', 'end', ...(hasSemantic ? (['semantic'] as const) : [])], file },
      );
      gate = hasGate ? acc.finish(tEnd) : undefined;
      skippedRecords += scan.errorCount;
      firstErrors.push(...scan.errors.slice(0, MAX_ERROR_MESSAGES - firstErrors.length).map((e) => e.message));
    }
    const semantic = sem?.finish();
    const regions = trace.skippedRegions;
    const damage: EpisodeDamage | undefined =
      trace.end !== 'complete' || skippedRecords > 0 || regions.length > 0
        ? {
            state: trace.end,
            end:
              regions.length > 0
                ? `${describeScanEnd(trace.scanEnd)}; ${describeSkipped(regions)}`
                : describeScanEnd(trace.scanEnd),
            skippedRecords,
            firstErrors,
            ...(regions.length > 0 ? { lostRegions: regions.length } : {}),
          }
        : undefined;
    return {
      trace,
      extras: {
        robotId: trace.start.robotId,
        format: 'mcap',
        fileState: trace.end,
        ...(trace.start.gateMode ? { gateMode: trace.start.gateMode } : {}),
        ...(gate ? { gate } : {}),
        ...(semantic ? { semantic } : {}),
        ...(damage ? { damage } : {}),
      },
    };
  }
}
