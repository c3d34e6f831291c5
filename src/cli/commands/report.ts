import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gateModeLabel } from '../../report/render/html.js';
import { EXIT, parseArgs, type Command } from '../command.js';
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from '../../report/metrics/index.js';
import { EpisodeScorer } from '../../safety/index.js';
import { GROUP_KEYS, type GroupKey } from '../../report/build-types.js';
import { ProgressBar, buildReportFromDir, writeReport } from '../../report/build-run.js';
import { defaultSpecPaths, loadScoringSpec } from '../spec-files.js';

export const reportCommand: Command = {
  name: 'report',
  help: `usage: armguard report <dir> [options]

Reads every episode in <dir> — armguard episode files (*.mcap) and the JSONL/CSV trace files that
'armguard score' reads — one at a time, scores each against the clause library, and writes to --out:
  report.html   one self-contained page (inline CSS/SVG, no script): headline SR / Safety / SBU /
                P[U|S] / VSI / VSI|U with intervals, four quadrants, per-task table (seeds/000 Table 33
                layout), per-clause rates / exposure / longest runs, SBU composition, robustness-trace
                plots of the worst unsafe episodes, threshold sensitivity, CC/RET, gate statistics
  report.md     the same tables in Markdown
  episodes.csv  one row per episode
  summary.json  every figure (armguard-report/1)
Exit status 1 when some file could not be read or scored (the report lists it and does not count it).

options:
  --out <dir>            output directory (default <dir>/report)
  --group-by <key>       also report per policy | task | platform | robot (and per gate mode when modes are mixed)
  --compare <A,B>        two policies side by side; policy@off|on|monitor names the gate mode
                         (required for a policy run in more than one mode: modes are never pooled)
  --worst <n>            trace plots of the n worst unsafe episodes (default 10)
  --seed <n>             bootstrap seed (default ${DEFAULT_SEED})
  --resamples <n>        bootstrap resamples (default ${DEFAULT_RESAMPLES})
  --no-sensitivity       skip threshold-sensitivity re-scoring
  --progress             progress bar on stderr even when it is not a terminal
  --title <text>         report title
  --clauses <file>       clause library (default spec/clauses.yaml)
  --tasks <file>         task map (default spec/tasks.yaml)
  --platforms <file>     platform profiles (default spec/platforms.yaml)

examples:
  armguard report recordings/pilot-2026-05/
  armguard report recordings/ --group-by policy --compare smolvla-v2,pi0-v3 --out review/`,

  async run(args, io) {
    const parsed = parseArgs(args, {
      strings: ['out', 'group-by', 'compare', 'worst', 'seed', 'resamples', 'title', 'clauses', 'tasks', 'platforms'],
      booleans: ['no-sensitivity', 'progress'],
    });
    const fail = (msg: string) => {
      io.err(`armguard report: ${msg}`);
      return EXIT.usage;
    };
    if (!parsed.ok) return fail(parsed.error);
    const { options, positionals } = parsed;
    if (positionals.length !== 1)
      return fail('expected exactly one episode directory (usage: armguard report <dir> [options])');
    const dir = positionals[0]!;
    try {
      if (!(await stat(dir)).isDirectory()) return fail(`${dir} is not a directory`);
    } catch (e) {
      return fail(`${dir}: cannot read: ${(e as Error).message}`);
    }
    const str = (k: string): string | undefined =>
      typeof options.get(k) === 'string' ? (options.get(k) as string) : undefined;
    const int = (name: string, fallback: number): number | undefined => {
      const v = str(name);
      if (v === undefined) return fallback;
      const n = Number(v);
      return Number.isInteger(n) && n >= 0 ? n : undefined;
    };
    const seed = int('seed', DEFAULT_SEED);
    const resamples = int('resamples', DEFAULT_RESAMPLES);
    const worst = int('worst', 10);
    for (const [k, v] of [
      ['seed', seed],
      ['resamples', resamples],
      ['worst', worst],
    ] as const) {
      if (v === undefined) return fail(`--${k} expects an integer >= 0, got '${str(k)}'`);
    }
    const groupBy = str('group-by');
    if (groupBy !== undefined && !(GROUP_KEYS as readonly string[]).includes(groupBy))
      return fail(`--group-by expects one of ${GROUP_KEYS.join(', ')}, got '${groupBy}'`);
    const compareText = str('compare');
    let compare: [string, string] | undefined;
    if (compareText !== undefined) {
      const parts = compareText.split(',').map((s) => s.trim());
      if (parts.length !== 2 || parts.some((p) => p === ''))
        return fail(`--compare expects two policy names 'A,B', got '${compareText}'`);
      compare = [parts[0]!, parts[1]!];
    }

    const defaults = defaultSpecPaths();
    const loaded = loadScoringSpec({
      clauses: str('clauses') ?? defaults.clauses,
      tasks: str('tasks') ?? defaults.tasks,
      platforms: str('platforms') ?? defaults.platforms,
    });
    if (!loaded.ok) {
      for (const p of loaded.problems) io.err(p);
      return EXIT.failure;
    }
    const showProgress = options.has('progress') || process.stderr.isTTY === true;
    const bar = showProgress ? new ProgressBar((s) => process.stderr.write(s)) : undefined;
    const data = await buildReportFromDir(
      dir,
      {
        scorer: new EpisodeScorer(loaded.spec),
        bootstrap: { resamples: resamples!, seed: seed! },
        ...(options.has('no-sensitivity') ? {} : { sensitivity: loaded.spec.library.sensitivity }),
        ...(groupBy ? { groupBy: groupBy as GroupKey } : {}),
        ...(compare ? { compare } : {}),
        worst: worst!,
        ...(str('title') ? { title: str('title')! } : {}),
        source: dir,
        generatedAt: new Date().toISOString(),
      },
      bar ? (done, total) => bar.update(done, total) : undefined,
    );
    if (data.episodes === 0 && data.skipped.length === 0) {
      io.err(`armguard report: ${dir}: no episode files (*.mcap, *.jsonl, *.csv)`);
      return EXIT.failure;
    }
    const outDir = str('out') ?? join(dir, 'report');
    const written = await writeReport(outDir, data);
    for (const s of data.skipped) io.err(`${s.file}: ${s.reason}`);
    for (const w of data.warnings.filter((x) => x.startsWith('--compare'))) io.err(`armguard report: ${w}`);
    const figures = (m: typeof data.summary) =>
      `SR ${m.sr.k}/${m.sr.n}, SBU ${m.sbu.k}/${m.sbu.n}, P[U|S] ${m.pUnsafeGivenSuccess.k}/${m.pUnsafeGivenSuccess.n}, VSI ${m.vsi.estimate.toFixed(3)}`;
    if (data.runGroups.length <= 1)
      io.out(`${data.episodes} episodes (${data.robots.length} robot(s)): ${figures(data.summary)}`);
    else {
      // Never one pooled line over gate modes: one per run group.
      io.out(`${data.episodes} episodes (${data.robots.length} robot(s)) in ${data.runGroups.length} run groups:`);
      for (const g of data.runGroups)
        io.out(
          `  ${gateModeLabel(g.gateMode)} · policy ${g.policy}: ${g.metrics.episodes} episodes, ${figures(g.metrics)}`,
        );
    }
    io.out(`wrote ${written.join(', ')}`);
    const lost = data.damaged.filter((d) => (d.lostRegions ?? 0) > 0);
    for (const d of lost) io.err(`${d.file}: ${d.end}`);
    if (data.skipped.length > 0) {
      io.err(`armguard report: ${data.skipped.length} file(s) not counted (listed in the report)`);
      return EXIT.failure;
    }
    if (lost.length > 0) {
      io.err(
        `armguard report: ${lost.length} episode file(s) had damaged regions skipped: their records there are lost (counted from what was read)`,
      );
      return EXIT.failure;
    }
    return EXIT.ok;
  },
};
