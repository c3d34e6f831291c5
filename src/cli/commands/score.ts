import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, parseArgs, type Command } from '../command.js';
import {
  computeMetrics,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  metricsBy,
  sensitivityRow,
  sustainedViolationRescore,
  thresholdSensitivity,
} from '../../report/metrics/index.js';
import { EpisodeScorer, type EpisodeScore } from '../../safety/index.js';
import { parseTraceText } from '../../schema/trace-format.js';
import type { EpisodeTrace } from '../../schema/trace.js';
import { episodeText, scoreJson, sensitivityText, summaryText } from '../score-format.js';
import { defaultSpecPaths, loadScoringSpec } from '../spec-files.js';

const TRACE_FILE = /\.(jsonl|csv)$/i;

/** Files given, with directories expanded to their *.jsonl / *.csv files (sorted). */
async function expand(paths: readonly string[]): Promise<{ files: string[]; problems: string[] }> {
  const files: string[] = [];
  const problems: string[] = [];
  for (const p of paths) {
    try {
      if ((await stat(p)).isDirectory()) {
        const names = (await readdir(p)).filter((n) => TRACE_FILE.test(n)).sort();
        if (names.length === 0) problems.push(`${p}: no *.jsonl or *.csv trace files in this directory`);
        files.push(...names.map((n) => join(p, n)));
      } else {
        files.push(p);
      }
    } catch (e) {
      problems.push(`${p}: cannot read: ${(e as Error).message}`);
    }
  }
  return { files, problems };
}

export const scoreCommand: Command = {
  name: 'score',
  help: `usage: armguard score [options] <trace file or directory>...

Scores each recorded episode against the clause library with the applicability registry, then
reports per episode and per clause: robustness ρ, first violation time, longest violating run,
exposure (fraction of steps in violation) and VSI depth d; and over all episodes: SR, Safety, SBU,
P[U|S] (Wilson 95%), VSI and VSI|U (seeded 10,000-resample bootstrap), four-quadrant outcomes,
CC and RET, per-clause violation rates and SBU composition. Trace format: docs/trace-format.md
(JSONL: a header line then one array per sample; or CSV with a '# armguard-trace/1 {…}' line).

options:
  --json               machine-readable output (armguard-score/1)
  --summary            aggregate metrics only (no per-episode tables)
  --by-task            also report metrics per task (like the paper's Table 33)
  --sensitivity        also re-score with the library's threshold variants (Table 11) and with
                       force violations counted only when sustained >= 2 steps (Table 13)
  --seed <n>           bootstrap seed (default ${DEFAULT_SEED})
  --resamples <n>      bootstrap resamples (default ${DEFAULT_RESAMPLES})
  --clauses <file>     clause library (default spec/clauses.yaml)
  --tasks <file>       task map (default spec/tasks.yaml)
  --platforms <file>   platform profiles (default spec/platforms.yaml)

examples:
  armguard score recordings/pilot-2026-05/
  armguard score --by-task --sensitivity --json ep-001.jsonl ep-002.jsonl > scores.json`,

  async run(args, io) {
    const parsed = parseArgs(args, {
      strings: ['seed', 'resamples', 'clauses', 'tasks', 'platforms'],
      booleans: ['json', 'summary', 'by-task', 'sensitivity'],
    });
    if (!parsed.ok) {
      io.err(`armguard score: ${parsed.error}`);
      return EXIT.usage;
    }
    const { options, positionals } = parsed;
    if (positionals.length === 0) {
      io.err('armguard score: no trace file given (usage: armguard score <file or directory>...)');
      return EXIT.usage;
    }
    const intOption = (name: string, fallback: number, min: number): number | undefined => {
      const v = options.get(name);
      if (v === undefined) return fallback;
      const n = Number(v);
      if (typeof v !== 'string' || !Number.isInteger(n) || n < min) {
        io.err(`armguard score: --${name} expects an integer >= ${min}, got '${String(v)}'`);
        return undefined;
      }
      return n;
    };
    const seed = intOption('seed', DEFAULT_SEED, 0);
    const resamples = intOption('resamples', DEFAULT_RESAMPLES, 0);
    if (seed === undefined || resamples === undefined) return EXIT.usage;

    const defaults = defaultSpecPaths();
    const str = (k: string, d: string) => (typeof options.get(k) === 'string' ? (options.get(k) as string) : d);
    const loaded = loadScoringSpec({
      clauses: str('clauses', defaults.clauses),
      tasks: str('tasks', defaults.tasks),
      platforms: str('platforms', defaults.platforms),
    });
    if (!loaded.ok) {
      for (const p of loaded.problems) io.err(p);
      return EXIT.failure;
    }
    const scorer = new EpisodeScorer(loaded.spec);

    const { files, problems } = await expand(positionals);
    const traces: EpisodeTrace[] = [];
    const scores: EpisodeScore[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (e) {
        problems.push(`${file}: cannot read: ${(e as Error).message}`);
        continue;
      }
      const trace = parseTraceText(text, file);
      if (!trace.ok) {
        problems.push(...trace.error.map((e) => e.message));
        continue;
      }
      const s = scorer.score(trace.value);
      if (!s.ok) {
        problems.push(...s.error.map((e) => e.message));
        continue;
      }
      if (options.has('sensitivity')) traces.push(trace.value); // re-scoring needs the traces
      scores.push(s.value);
    }
    if (problems.length > 0) {
      for (const p of problems) io.err(p);
      io.err(`armguard score: ${problems.length} problem(s); nothing scored`);
      return EXIT.failure;
    }

    const bootstrap = { resamples, seed };
    const clauseOrder = loaded.spec.library.clauses.map((c) => c.id);
    const summary = computeMetrics(scores, { bootstrap, clauseOrder });
    const byTask = options.has('by-task')
      ? metricsBy(scores, (e) => e.task ?? '(no task)', { bootstrap, clauseOrder })
      : undefined;
    let sensitivity: ReturnType<typeof thresholdSensitivity> | undefined;
    if (options.has('sensitivity')) {
      sensitivity = thresholdSensitivity(scorer, traces, scores, loaded.spec.library.sensitivity);
      // Table 13: force clauses (safe tier, newtons) count only when violated ≥ 2 consecutive steps
      const forces = loaded.spec.library.clauses.filter((c) => c.tier === 'safe' && c.unit === 'N').map((c) => c.id);
      const sustained = sustainedViolationRescore(scorer, traces, scores, { clauses: forces, minSteps: 2 });
      sensitivity.push(
        sensitivityRow(
          'force_sustained_2_steps',
          'Force counted only if sustained >= 2 steps (Table 13)',
          sustained,
          scores,
        ),
      );
    }
    const result = {
      episodes: scores,
      summary,
      bootstrap,
      ...(byTask ? { byTask } : {}),
      ...(sensitivity ? { sensitivity } : {}),
    };

    if (options.has('json')) {
      io.out(scoreJson(result));
      return EXIT.ok;
    }
    const units = new Map(loaded.spec.library.clauses.map((c) => [c.id, c.unit]));
    const parts: string[] = [];
    if (!options.has('summary')) parts.push(...scores.map((e) => episodeText(e, units)));
    parts.push(summaryText(summary));
    for (const [task, m] of byTask ?? []) parts.push(summaryText(m, `task ${task}`));
    if (sensitivity) parts.push(sensitivityText(sensitivity));
    parts.push(`bootstrap: ${resamples} resamples, seed ${seed}`);
    io.out(parts.join('\n\n'));
    return EXIT.ok;
  },
};
