/**
 * The episode index: `episodes.jsonl` beside the episode files, one JSON line per episode (file
 * relative to the index's folder). Lines are only appended; when a file has several lines (it was
 * relabeled or repaired) the last one wins. Reports read this instead of opening every file.
 */
import { appendFile, readdir } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { InputError } from '../util/index.js';
import { effectiveLabel } from './labels.js';
import { readEpisode } from './reader.js';
import type { ClauseSummary, EpisodeIndexEntry, LabelRecord } from './types.js';
import { coverageVerdict, type ClauseCoverage, type EpisodeCoverage } from '../schema/clause-coverage.js';

export const INDEX_FILE_NAME = 'episodes.jsonl';

/**
 * One clause's index summary: its smallest ρ and violating steps, and — when the episode recorded
 * where the clause was evaluated — that coverage and the verdict (src/schema/clause-coverage.ts's
 * coverageVerdict): `not evaluated: signal X missing` when it never was (then minRho is null), and
 * also when it was evaluated on part of the episode without a violation there.
 */
export function clauseSummary(
  minRho: number,
  violatedSteps: number,
  coverage: EpisodeCoverage | undefined,
  i: number,
): ClauseSummary {
  const c = coverage?.clauses[i];
  const summary: ClauseSummary = {
    minRho: Number.isFinite(minRho) && c?.evaluatedSteps !== 0 ? minRho : null,
    violatedSteps,
  };
  if (!c || !coverage) return summary;
  summary.evaluatedSteps = c.evaluatedSteps;
  summary.missing = c.missing;
  // the report's and `armguard replay`'s semantics: partly evaluated without a violation is not satisfied
  const v = coverageVerdict(c, coverage.steps, violatedSteps);
  summary.verdict = v.kind === 'not-evaluated' ? 'not evaluated' : v.kind;
  if (v.kind !== 'satisfied' && v.note !== undefined) summary.notEvaluated = v.note;
  return summary;
}

/** A coverage read from a file (end record) has the shape clauseSummary reads. */
function isEpisodeCoverage(v: unknown): v is EpisodeCoverage {
  const c = v as Partial<EpisodeCoverage> | null | undefined;
  return (
    typeof c?.steps === 'number' &&
    Array.isArray(c.clauses) &&
    c.clauses.every(
      (x: unknown) =>
        typeof (x as ClauseCoverage | null)?.evaluatedSteps === 'number' &&
        Array.isArray((x as ClauseCoverage).missing),
    )
  );
}

/** The key of `file` in the index at `indexPath` (its path relative to the index's folder). */
export function indexKey(indexPath: string, file: string): string {
  return relative(dirname(resolve(indexPath)), resolve(file));
}

export async function appendIndexEntry(indexPath: string, entry: EpisodeIndexEntry): Promise<void> {
  await appendFile(indexPath, `${JSON.stringify(entry)}\n`);
}

/** Entries by file, last line per file winning. A malformed line is an InputError with its line. */
export async function readIndex(indexPath: string): Promise<Map<string, EpisodeIndexEntry>> {
  const entries = new Map<string, EpisodeIndexEntry>();
  let lineNo = 0;
  let stream;
  try {
    stream = createReadStream(indexPath, 'utf8');
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      lineNo++;
      if (line.trim() === '') continue;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch (e) {
        throw new InputError({ file: indexPath, line: lineNo }, `invalid JSON: ${(e as Error).message}`);
      }
      const o = v as Partial<EpisodeIndexEntry> | null;
      if (!o || typeof o !== 'object' || typeof o.file !== 'string' || typeof o.episodeId !== 'string') {
        throw new InputError(
          { file: indexPath, line: lineNo },
          "expected an index entry with string 'file' and 'episodeId'",
        );
      }
      entries.set(o.file, o as EpisodeIndexEntry);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return entries;
    throw e;
  }
  return entries;
}

/** The entry after a label record: success/task/policy follow the label. */
export function updateEntryWithLabel(entry: EpisodeIndexEntry, label: LabelRecord): EpisodeIndexEntry {
  const next = { ...entry };
  if (label.success !== undefined) next.success = label.success;
  if (label.taskId !== undefined) next.task = label.taskId;
  if (label.policy !== undefined) next.policy = label.policy;
  return next;
}

/** Build an index entry by reading an episode file (for files that crashed or were repaired). */
export async function indexEpisodeFile(file: string, key: string = basename(file)): Promise<EpisodeIndexEntry> {
  const labels: LabelRecord[] = [];
  let tEnd = -Infinity;
  let minRho: number[] = [];
  let violated: number[] = [];
  let coverage: EpisodeCoverage | undefined;
  const scan = await readEpisode(
    file,
    (r) => {
      if (r.t > tEnd) tEnd = r.t;
      if (r.kind === 'label') labels.push(r.value);
      else if (r.kind === 'end') coverage = isEpisodeCoverage(r.value.coverage) ? r.value.coverage : undefined;
      else if (r.kind === 'robustness') {
        r.value.rho.forEach((v, i) => {
          if (v === null) return;
          if (i >= minRho.length) return;
          if (v < minRho[i]!) minRho[i] = v;
          if (v < 0) violated[i]!++;
        });
      }
    },
    {
      kinds: ['label', 'robustness', 'frame', 'end', 'gate'],
      onStart: (s) => {
        minRho = s.clauses.map(() => Infinity);
        violated = s.clauses.map(() => 0);
      },
    },
  );
  const start = scan.start;
  if (!start) throw new InputError({ file }, 'not an armguard episode file (no episode metadata record)');
  const label = effectiveLabel(labels);
  const clauses: Record<string, ClauseSummary> = {};
  start.clauses.forEach((id, i) => {
    clauses[id] = clauseSummary(minRho[i]!, violated[i]!, coverage, i);
  });
  const entry: EpisodeIndexEntry = {
    file: key,
    episodeId: start.episodeId,
    robotId: start.robotId,
    startedAt: start.startedAt,
    t0: start.t0,
    tEnd: Number.isFinite(tEnd) ? tEnd : start.t0,
    counts: scan.counts,
    versions: start.versions,
    state: scan.end.kind,
  };
  if (start.platform !== undefined) entry.platform = start.platform;
  const task = label.taskId ?? start.task;
  if (task !== undefined) entry.task = task;
  const policy = label.policy ?? start.policy;
  if (policy !== undefined) entry.policy = policy;
  if (label.success !== undefined) entry.success = label.success;
  if (start.clauses.length > 0) entry.clauses = clauses;
  return entry;
}

/** Re-index every `.mcap` episode file in `dir` (writes a fresh episodes.jsonl via append). */
export async function rebuildIndex(
  dir: string,
): Promise<{ indexed: number; skipped: { file: string; reason: string }[] }> {
  const indexPath = join(dir, INDEX_FILE_NAME);
  const skipped: { file: string; reason: string }[] = [];
  let indexed = 0;
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.mcap')).sort()) {
    try {
      await appendIndexEntry(indexPath, await indexEpisodeFile(join(dir, name), name));
      indexed++;
    } catch (e) {
      skipped.push({ file: name, reason: (e as Error).message });
    }
  }
  return { indexed, skipped };
}
