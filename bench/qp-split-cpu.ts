/**
 * CPU time per solve of two copies of the QP solver side by side, for refactors of src/qp that must
 * keep its speed (issue 17 item 5). Each copy runs in its own child process, the two alternating
 * `--runs` times: the `gen-chunk-qp.mjs --seq 20` sequences (6 joints, 2–4 pairs, seeds 1–3), one
 * QpSolver per sequence, 2 untimed passes, then 5 timed passes, every solve cold; the figure is
 * process CPU (user + system) per solve, which leaves out time spent waiting for a core on a shared
 * machine. Prints every run with the 1-minute load average, then the median per copy and the median
 * of the ratios new/old of the runs made one after the other (the machine's speed shifts between
 * runs on a shared machine; the two runs of a pair see much the same).
 *
 *   mkdir -p /tmp/qp-old && git archive <commit> src/qp src/util/errors.ts | tar -x -C /tmp/qp-old \
 *     && echo '{"type":"module"}' > /tmp/qp-old/package.json      # ESM, as in the repository
 *   npx tsx bench/qp-split-cpu.ts --old /tmp/qp-old/src/qp [--new /tmp/qp-new/src/qp] [--runs 3] [--together]
 *
 * --together runs the two children of a pair at the same time instead of one after the other, so
 * both see the same state of the shared machine (whose speed jumps between runs).
 * --interleaved P solves with both copies in one process instead, P alternating passes each;
 * with --new-polish the new copy solves with QpSolveOptions.polish.
 *
 * ARMGUARD_SHARED overrides the location of shared/ (default: beside the repository).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface SolverModule {
  QpSolver: new (p: unknown) => { solve(p: unknown, o: { maxIterations: number }): { iterations: number } };
  parseQpJson(text: string, file: string): unknown[];
}
interface RunFigures {
  cpuMsPerSolve: number;
  iterationsMean: number;
  solves: number;
}

const PAIRS = [2, 3, 4];
const SEEDS = [1, 2, 3];

async function child(qpDir: string, problemDir: string): Promise<void> {
  const qp = (await import(resolve(qpDir, 'index.ts'))) as SolverModule;
  const groups: { solver: InstanceType<SolverModule['QpSolver']>; problems: unknown[] }[] = [];
  for (const pairs of PAIRS) {
    for (const seed of SEEDS) {
      const file = join(problemDir, `p${pairs}-s${seed}.json`);
      const problems = qp.parseQpJson(readFileSync(file, 'utf8'), file);
      groups.push({ solver: new qp.QpSolver(problems[0]), problems });
    }
  }
  const options = { maxIterations: 40 };
  let iterations = 0;
  let solves = 0;
  const pass = (count: boolean): void => {
    for (const g of groups) {
      for (const p of g.problems) {
        const r = g.solver.solve(p, options);
        if (count) {
          iterations += r.iterations;
          solves++;
        }
      }
    }
  };
  pass(false);
  pass(false);
  const c0 = process.cpuUsage();
  for (let k = 0; k < 5; k++) pass(true);
  const c = process.cpuUsage(c0);
  const figures: RunFigures = {
    cpuMsPerSolve: (c.user + c.system) / 1000 / solves,
    iterationsMean: iterations / solves,
    solves,
  };
  console.log(JSON.stringify(figures));
}

/**
 * --interleaved: both copies in this one process, the same problems solved by old and new in
 * alternating passes (old, new, new, old, …), CPU time summed per copy — both see the same
 * machine state at a granularity of one pass (~0.3 s), which separate processes cannot give.
 */
async function interleaved(oldDir: string, newDir: string, problemDir: string, passes: number): Promise<void> {
  const load = async (dir: string) => {
    const qp = (await import(resolve(dir, 'index.ts'))) as SolverModule;
    const groups: { solver: InstanceType<SolverModule['QpSolver']>; problems: unknown[] }[] = [];
    for (const pairs of PAIRS) {
      for (const seed of SEEDS) {
        const file = join(problemDir, `p${pairs}-s${seed}.json`);
        const problems = qp.parseQpJson(readFileSync(file, 'utf8'), file);
        groups.push({ solver: new qp.QpSolver(problems[0]), problems });
      }
    }
    return groups;
  };
  const copies = { old: await load(oldDir), new: await load(newDir) };
  // --new-polish: the new copy solves with QpSolveOptions.polish (the active-set polish)
  const newPolish = process.argv.includes('--new-polish');
  const options = { maxIterations: 40 };
  const newOptions = { maxIterations: 40, polish: newPolish };
  const pass = (label: 'old' | 'new'): { ms: number; iterations: number; solves: number } => {
    let iterations = 0;
    let solves = 0;
    const c0 = process.cpuUsage();
    for (const g of copies[label]) {
      for (const p of g.problems) {
        iterations += g.solver.solve(p, label === 'new' ? newOptions : options).iterations;
        solves++;
      }
    }
    const c = process.cpuUsage(c0);
    return { ms: (c.user + c.system) / 1000, iterations, solves };
  };
  for (let k = 0; k < 2; k++) {
    pass('old');
    pass('new');
  }
  const ms = { old: 0, new: 0 };
  const ratios: number[] = [];
  let solves = 0;
  let iterations = { old: 0, new: 0 };
  for (let k = 0; k < passes; k++) {
    const order: ('old' | 'new')[] = k % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
    const got = { old: 0, new: 0 };
    for (const label of order) {
      const r = pass(label);
      got[label] = r.ms;
      ms[label] += r.ms;
      iterations = { ...iterations, [label]: iterations[label] + r.iterations };
      solves = r.solves;
    }
    ratios.push(got.new / got.old);
  }
  const per = (label: 'old' | 'new'): string => (ms[label] / (passes * solves)).toFixed(3);
  console.log(
    `interleaved, ${passes} passes each of ${solves} solves, load ${loadavg()[0]!.toFixed(1)}: old ${per('old')} ms, new ${per('new')} ms CPU per solve (iterations ${iterations.old} / ${iterations.new}); total new/old ${(ms.new / ms.old).toFixed(3)}, median per-pass ratio ${median(ratios).toFixed(3)}`,
  );
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function parent(): Promise<void> {
  const arg = (name: string): string | undefined => {
    const k = process.argv.indexOf(`--${name}`);
    return k >= 0 ? process.argv[k + 1] : undefined;
  };
  const oldDir = arg('old');
  const runs = Number(arg('runs') ?? '3');
  const together = process.argv.includes('--together');
  if (oldDir === undefined || !Number.isInteger(runs) || runs < 1) {
    console.error(
      'usage: npx tsx bench/qp-split-cpu.ts --old <copy of src/qp> [--new <copy of src/qp>] [--runs N] [--together]',
    );
    process.exit(2);
  }
  const here = fileURLToPath(new URL('.', import.meta.url));
  const shared = process.env.ARMGUARD_SHARED ?? resolve(here, '../../shared');
  // --new: a snapshot of the new code (so the working tree may change while the runs go on)
  const newDir = resolve(arg('new') ?? resolve(here, '../src/qp'));
  const problemDir = mkdtempSync(join(tmpdir(), 'qp-split-cpu-'));
  try {
    for (const pairs of PAIRS) {
      for (const seed of SEEDS) {
        const args = ['--seq', '20', '--n', '6', '--pairs', String(pairs), '--seed', String(seed)];
        const text = execFileSync(process.execPath, [resolve(shared, 'qp/gen-chunk-qp.mjs'), ...args], {
          encoding: 'utf8',
          maxBuffer: 1 << 28,
        });
        writeFileSync(join(problemDir, `p${pairs}-s${seed}.json`), text);
      }
    }
    const passesArg = arg('interleaved');
    if (passesArg !== undefined) {
      await interleaved(oldDir, newDir, problemDir, Number(passesArg));
      return;
    }
    const self = fileURLToPath(import.meta.url);
    const cpu: Record<'old' | 'new', number[]> = { old: [], new: [] };
    const dirs = [
      ['old', resolve(oldDir)],
      ['new', newDir],
    ] as const;
    const runChild = async (dir: string): Promise<RunFigures> =>
      JSON.parse(
        (
          await promisify(execFile)(process.execPath, ['--import', 'tsx', self, '--child', dir, problemDir], {
            encoding: 'utf8',
          })
        ).stdout,
      ) as RunFigures;
    const report = (r: number, label: 'old' | 'new', figures: RunFigures, load: number): void => {
      cpu[label].push(figures.cpuMsPerSolve);
      console.log(
        `run ${r + 1} ${label}: ${figures.cpuMsPerSolve.toFixed(2)} ms CPU per solve, ${figures.iterationsMean.toFixed(2)} iterations, ${figures.solves} solves, load ${load.toFixed(1)}`,
      );
    };
    for (let r = 0; r < runs; r++) {
      if (together) {
        const load = loadavg()[0]!;
        const [o, n] = await Promise.all([runChild(dirs[0][1]), runChild(dirs[1][1])]);
        report(r, 'old', o, load);
        report(r, 'new', n, load);
      } else {
        for (const [label, dir] of dirs) {
          const load = loadavg()[0]!;
          report(r, label, await runChild(dir), load);
        }
      }
    }
    const o = median(cpu.old);
    const n = median(cpu.new);
    // the machine's speed shifts between runs (other users); a run and its partner share the state
    const ratios = cpu.new.map((v, r) => v / cpu.old[r]!);
    console.log(
      `median CPU per solve: old ${o.toFixed(2)} ms, new ${n.toFixed(2)} ms; median of the per-run new/old ratios ${median(ratios).toFixed(3)}`,
    );
  } finally {
    rmSync(problemDir, { recursive: true, force: true });
  }
}

const k = process.argv.indexOf('--child');
if (k >= 0) await child(process.argv[k + 1]!, process.argv[k + 2]!);
else await parent();
