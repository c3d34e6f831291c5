/**
 * This tree against another checkout of armguard, in one process, on the fragile pilot's recorded
 * filter calls (bench/cbf-replay.ts record): both trees' code is loaded side by side and every
 * measurement alternates between them call by call, so the host's speed states (this 2-vCPU VM
 * runs everything ~1.6× slower for seconds at a time) fall on both alike — separate runs a minute
 * apart do not compare.
 *
 *   filter: each tree builds the pilot's cbf filter (as the replay does) and runs every recorded
 *           call R times, alternating which tree goes first; prints per call best-of-R wall time
 *           p50 / p99 / max and the sum for each, and whether the outcomes agree (status per call,
 *           max |Δtarget|).
 *   qp:     one pass of the calls through this tree's filter keeps every QP it solves (values,
 *           bounds); each is then solved cold at the filter's tolerance by both trees' QpSolver,
 *           alternating, R times: total wall time of each, interior-point iterations, statuses and
 *           max |Δx|.
 *
 * The other tree needs node_modules (a symlink to this one's will do), e.g.
 *   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/node_modules
 * Run: npx tsx bench/tree-ab.ts filter|qp <other-tree> <panda|so101> <recording.json> [rounds=10]
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as QpModule from '../src/qp/index.js';
import type { QpProblem, QpSolveOptions } from '../src/qp/types.js';
import { pilotCbfFilter, replayHeldTilt, type HeldTiltInputs, type PilotModules } from './support/pilot-filter.js';

const [cmd, otherArg, armArg, file, roundsArg] = process.argv.slice(2);
if ((cmd !== 'filter' && cmd !== 'qp') || !otherArg || (armArg !== 'panda' && armArg !== 'so101') || !file) {
  console.error('usage: npx tsx bench/tree-ab.ts filter|qp <other-tree> <panda|so101> <recording.json> [rounds=10]');
  process.exit(2);
}
const arm: 'panda' | 'so101' = armArg;
const rounds = Number(roundsArg ?? '10');
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const other = resolve(otherArg);

interface Call extends HeldTiltInputs {
  nominal: number[];
  horizon: number;
  q0: number[];
  dt: number;
  spheres: number[][];
}
const calls = (JSON.parse(readFileSync(file, 'utf8')) as { calls: Call[] }).calls.map((c) => ({
  ...c,
  nominalF: Float64Array.from(c.nominal),
  q0F: Float64Array.from(c.q0),
}));

const load = (root: string, path: string): Promise<unknown> => import(pathToFileURL(resolve(root, path)).href);

/** A tree's pilot cbf filter (bench/support/pilot-filter.ts), fed each call's held-cup inputs. */
async function pilotFilter(root: string) {
  const modules = {
    sim: await load(root, 'drivers/sim/index.ts'),
    episode: await load(root, 'src/cli/demo/fragile/episode.ts'),
    filters: await load(root, 'src/cli/demo/fragile/filters.ts'),
    clauses: await load(root, 'src/cli/demo/clauses.ts'),
    specFiles: await load(root, 'src/cli/spec-files.ts'),
  } as PilotModules;
  const mf = pilotCbfFilter(modules, arm);
  const heldTiltStep = replayHeldTilt(mf);
  return (c: (typeof calls)[number]): { status: string; targets: Float64Array } => {
    heldTiltStep(c);
    c.spheres.forEach((sp, g) => mf.groups[g]!.spheres.set(sp));
    return mf.filter.filter(c.nominalF, c.horizon, c.q0F, c.dt);
  };
}

function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

if (cmd === 'filter') {
  const trees = [await pilotFilter(other), await pilotFilter(here)];
  const best = trees.map(() => calls.map(() => Infinity));
  const first = trees.map(() => calls.map(() => ({ status: '', targets: new Float64Array(0) })));
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < calls.length; i++)
      for (const t of (r + i) % 2 === 0 ? [0, 1] : [1, 0]) {
        const t0 = performance.now();
        const o = trees[t]!(calls[i]!);
        best[t]![i] = Math.min(best[t]![i]!, performance.now() - t0);
        if (r === 0) first[t]![i] = { status: o.status, targets: Float64Array.from(o.targets) };
      }
  let statusDiff = 0;
  let dTarget = 0;
  for (let i = 0; i < calls.length; i++) {
    const [a, b] = [first[0]![i]!, first[1]![i]!];
    if (a.status !== b.status) statusDiff++;
    else
      for (let j = 0; j < a.targets.length; j++) dTarget = Math.max(dTarget, Math.abs(a.targets[j]! - b.targets[j]!));
  }
  const line = (name: string, b: number[]): string =>
    `${name}: p50 ${quantile(b, 0.5).toFixed(2)} / p99 ${quantile(b, 0.99).toFixed(2)} ms, max ${Math.max(...b).toFixed(2)} ms, sum ${sum(b).toFixed(1)} ms`;
  console.log(`${arm}, ${calls.length} calls × ${rounds}, per call best of ${rounds}, the trees alternating per call`);
  console.log(line(`other (${other})`, best[0]!));
  console.log(line(`this  (${here})`, best[1]!));
  console.log(
    `this / other, sums: ${(sum(best[1]!) / sum(best[0]!)).toFixed(3)}; statuses differing ${statusDiff}; max |Δtarget| over equal statuses ${dTarget.toExponential(2)} rad`,
  );
} else {
  // every QP this tree's filter solves in one pass, copied as solved
  const { QpSolver } = (await load(here, 'src/qp/index.ts')) as typeof QpModule;
  const { QpSolver: OtherSolver } = (await load(other, 'src/qp/index.ts')) as typeof QpModule;
  const kept: { problem: QpProblem; eps: number }[] = [];
  const solve = QpSolver.prototype.solve;
  QpSolver.prototype.solve = function (this: unknown, p: QpProblem, o?: QpSolveOptions) {
    if (o?.resume !== true) {
      const copy = (m: QpProblem['A']): QpProblem['A'] => ({
        ...m,
        colPtr: Int32Array.from(m.colPtr),
        rowIndex: Int32Array.from(m.rowIndex),
        values: Float64Array.from(m.values),
      });
      kept.push({
        problem: {
          ...p,
          P: copy(p.P),
          A: copy(p.A),
          q: Float64Array.from(p.q),
          l: Float64Array.from(p.l),
          u: Float64Array.from(p.u),
        },
        eps: o?.epsAbs ?? 1e-9,
      });
    }
    return solve.call(this, p, o);
  };
  const filter = await pilotFilter(here);
  for (const c of calls) filter(c);
  QpSolver.prototype.solve = solve;
  const solvers = [new OtherSolver(kept[0]!.problem), new QpSolver(kept[0]!.problem)];
  const time = [0, 0];
  const iterations = [0, 0];
  let statusDiff = 0;
  let dx = 0;
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < kept.length; i++) {
      const { problem, eps } = kept[i]!;
      const options = { epsAbs: eps, epsRel: eps, maxIterations: 50 };
      const out: { status: string; x: Float64Array; iterations: number }[] = [];
      for (const t of (r + i) % 2 === 0 ? [0, 1] : [1, 0]) {
        const t0 = performance.now();
        const res = solvers[t]!.solve(problem, options);
        time[t]! += performance.now() - t0;
        iterations[t]! += res.iterations;
        out[t] = { status: res.status, x: Float64Array.from(res.x), iterations: res.iterations };
      }
      if (out[0]!.status !== out[1]!.status) statusDiff++;
      for (let j = 0; j < problem.n; j++) dx = Math.max(dx, Math.abs(out[0]!.x[j]! - out[1]!.x[j]!));
    }
  console.log(
    `${arm}: ${kept.length} QPs of the filter's pass, each solved cold ${rounds} times per tree, alternating`,
  );
  console.log(
    `other (${other}): ${time[0]!.toFixed(0)} ms, ${iterations[0]} iterations, ${((time[0]! / iterations[0]!) * 1000).toFixed(1)} µs per iteration`,
  );
  console.log(
    `this  (${here}): ${time[1]!.toFixed(0)} ms, ${iterations[1]} iterations, ${((time[1]! / iterations[1]!) * 1000).toFixed(1)} µs per iteration`,
  );
  console.log(
    `this / other: ${(time[1]! / time[0]!).toFixed(3)}; statuses differing ${statusDiff}; max |Δx| ${dx.toExponential(2)}`,
  );
}
