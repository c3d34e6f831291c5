/**
 * The chunk-level CBF filter's time on the fragile-obstacle pilot's own calls, without re-running
 * MuJoCo for every measurement (issue 15, "Filter p99 ≤ 10 ms").
 *
 *   record: runs the pilot's cbf mode (seeds 1..N, as bench/fragile-obstacle.ts) and writes every
 *           filter call's inputs and outcome (status, targets) to a JSON file.
 *   replay: builds a fresh cbf filter exactly as the pilot does (modeFilter, the arm's profile, the
 *           demo's held-tilt limit) and replays the recorded calls in order, R times; prints every
 *           call's best-of-R wall time p50/p99/max (all calls and the modified ones), the CPU time
 *           of all samples, where the time goes (barrier h / gradient vs QP solve vs the rest, from
 *           timers around the barrier model and the solver in a separate pass), SQP rounds and
 *           interior-point iterations, and how the outcomes compare with the recorded ones (status
 *           per call; max |Δtarget|) — a change of code must not change a status for the worse.
 *
 * screen: the same calls through the filter with the redundant-row screen on and off, alternating
 *         per call in one process; prints how outcomes, SQP rounds, iterations and CPU compare. The
 *         filter built first runs some 5–10 % faster in CPU than the second (measured both ways on
 *         the Panda, whose screen frees few rows): run it both ways (SCREEN_FIRST=off builds the
 *         unscreened one first) and take the geometric mean of the two ratios.
 *
 * qp:     the filter's own QPs (one pass of the calls, screen on) solved screened and unscreened
 *         alternately with one solver and the round's warm start, R times: CPU, iterations, max |Δu|.
 *         `--eps E` solves at tolerance E instead of the filter's (how |Δu| follows the tolerance).
 *
 * polish: the filter's own QPs solved with the interior point alone and with src/qp's active-set
 *         polish (QpSolveOptions.polish / polishFromWarmStart; `--mode iterate|warm|both`, `--eps E`):
 *         iterations, polish attempts and factorisations, CPU, max |Δu| between the two answers.
 * filter-polish: the whole filter without and with polishFromWarmStart on every solve, two filters
 *         alternating per call in one process (POLISH_FIRST=on builds the polishing one first).
 *
 * garbage: bytes allocated per filter call over the recorded calls, garbage included (V8's sampling
 *         heap profiler keeping collected objects, bench/sampled-allocation.ts), by where the
 *         allocating code lives.
 *
 * `--no-screen` replays with the redundant-row screen off (CbfFilterConfig.screenRows false: the QP
 * keeps every CBF row), to compare rows, iterations and time with and without it.
 * `--clear-tolerance T` replays with CbfFilterConfig.clearRoundTolerance = T (m): a safe round that
 * keeps h ≥ 0 everywhere ends the rounds with a barrier-condition shortfall up to T.
 * `--first-iterations N` replays with CbfFilterConfig.firstRoundIterations = N (N ≥ maxIterations,
 * e.g. 40: no cap); `--back-off B` with CbfFilterConfig.backOff = B (m). CBF_REPLAY_ROUNDS=1 prints each
 * modified call's iterations per round (s: the round needed slack).
 * `--loose E` replays with CbfFilterConfig.looseRoundTolerance = E (0: off; the pilot's profiles set
 * one), `--loose-unfinished` with finishLooseRounds false, `--loose-final` with looseSlackByRecheck and
 * finishLooseRounds false (the profiles' cbfLooseResultsFinal); `--dump FILE` writes every call's replayed
 * status, max |u − u_nom| and targets, to compare two variants call by call.
 * `--accel A` replays with the same filter plus acceleration rows a_max = A rad/s² on every joint
 * (what the opt-in CbfFilterConfig.maxAcceleration costs per solve; outcomes then differ).
 *
 * Run: npx tsx bench/cbf-replay.ts record <panda|so101> <seeds> <file.json>
 *      npx tsx bench/cbf-replay.ts replay <panda|so101> <file.json> [rounds=10] [--accel A] [--no-screen] [--clear-tolerance T] [--first-iterations N] [--back-off B] [--loose E [--loose-unfinished]] [--loose-final] [--dump FILE]
 *      npx tsx bench/cbf-replay.ts screen <panda|so101> <file.json> [rounds=10]
 *      npx tsx bench/cbf-replay.ts qp <panda|so101> <file.json> [rounds=10] [--eps E]
 *      npx tsx bench/cbf-replay.ts polish <panda|so101> <file.json> [rounds=10] [--mode iterate|warm|both] [--eps E]
 *      npx tsx bench/cbf-replay.ts filter-polish <panda|so101> <file.json> [rounds=10]
 *      npx tsx bench/cbf-replay.ts garbage <panda|so101> <file.json> [passes=2]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { loadMujoco, pandaScene, so101Scene, type FragileArm } from '../drivers/sim/index.js';
import { runFragilePilot } from '../src/cli/demo/fragile/command.js';
import { heldTiltLimit, type FragileFilterCache } from '../src/cli/demo/fragile/episode.js';
import { ARM_FILTER_PROFILES, modeFilter, type ModeFilter } from '../src/cli/demo/fragile/filters.js';
import { p50p99 } from '../src/cli/demo/fragile/metrics.js';
import { demoClauses, demoPlatform } from '../src/cli/demo/clauses.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { ChunkCbfFilter } from '../src/gate/cbf-filter.js';
import { ChunkQp } from '../src/gate/cbf-qp.js';
import { QpSolver } from '../src/qp/index.js';
import type { QpProblem, QpSolveOptions } from '../src/qp/types.js';
import { interiorPointSolver } from '../src/gate/cbf-solver.js';
import type { BarrierModel, BoundQpSolver } from '../src/gate/cbf-types.js';
import { pilotCbfFilter, replayHeldTilt } from './support/pilot-filter.js';
import { sampledAllocation } from './sampled-allocation.js';

interface Call {
  nominal: number[];
  horizon: number;
  q0: number[];
  dt: number;
  spheres: number[][];
  status: string;
  targets: number[];
  /**
   * The held cup's axis the held-tilt filter's measurement port gave at the call (null: none), and
   * whether the call starts an episode (the episode resets the held-tilt switch there). Absent in
   * recordings made before the tilt reference was measured: no axis, no resets.
   */
  heldAxis?: number[] | null;
  episodeStart?: boolean;
  /**
   * The grasp reference and held-cup axis the commit re-check handed the filter before the call
   * (HeldTiltFilter.restoreGrasp; the pilot's cbf mode runs with the re-check, so its filter reads no
   * axis itself). Absent: the call had none handed (recordings before the re-check, or none given).
   */
  restored?: { lastGrip: number | null; pose: number[] | null; axis: number[] | null; heldAxis: number[] | null };
}

const SCENES = { so101: so101Scene, panda: pandaScene } as const;
const [cmd, armArg, a3, a4Raw] = process.argv.slice(2);
const a4 = a4Raw?.startsWith('--') ? undefined : a4Raw;
const arm = armArg as FragileArm;
if (!(arm in SCENES)) throw new Error(`arm must be panda or so101, got ${armArg}`);

function freshFilter(): ModeFilter {
  return pilotCbfFilter(
    {
      sim: { pandaScene, so101Scene },
      episode: { heldTiltLimit },
      filters: { ARM_FILTER_PROFILES, modeFilter },
      clauses: { demoClauses, demoPlatform },
      specFiles: { defaultSpecPaths, loadScoringSpec },
    },
    arm,
  );
}

/** Per call and variant: best wall time, CPU summed, and the first pass's outcome. */
interface VariantCallStats {
  best: number;
  cpu: number;
  status: string;
  rounds: number;
  iterations: number;
  targets: Float64Array;
}

/**
 * Every call through every variant, `rounds` times, alternating which variant goes first per call
 * (both see the same machine within milliseconds); `first` records more of the first pass.
 */
function timeInterleaved<S extends VariantCallStats>(
  inputs: readonly (Omit<Call, 'nominal' | 'q0'> & { nominal: Float64Array; q0: Float64Array })[],
  variants: readonly {
    mf: ReturnType<typeof freshFilter>;
    cbf: ChunkCbfFilter;
    stats: S[];
    heldTiltStep: (c: Pick<Call, 'heldAxis' | 'episodeStart' | 'restored'>) => void;
  }[],
  rounds: number,
  first?: (v: { cbf: ChunkCbfFilter }, st: S) => void,
): void {
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < inputs.length; i++) {
      const c = inputs[i]!;
      for (const v of (r + i) % 2 === 0 ? variants : [...variants].reverse()) {
        v.heldTiltStep(c);
        c.spheres.forEach((sp, g) => v.mf.groups[g]!.spheres.set(sp));
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const o = v.mf.filter.filter(c.nominal, c.horizon, c.q0, c.dt);
        const t = performance.now() - t0;
        const u = process.cpuUsage(c0);
        const st = v.stats[i]!;
        st.best = Math.min(st.best, t);
        st.cpu += (u.user + u.system) / 1000;
        if (r === 0) {
          st.status = o.status;
          st.rounds = v.cbf.outcome.rounds;
          st.iterations = v.cbf.outcome.iterations;
          st.targets = Float64Array.from(o.targets);
          first?.(v, st);
        }
      }
    }
  }
}

if (cmd === 'record') {
  const seeds = Number(a3);
  const file = a4!;
  const filters: FragileFilterCache = new Map();
  // Record the outcomes as the episode sees them: wrap the cached filter before the run builds its own.
  const mf = freshFilter();
  const calls: Call[] = [];
  const inner = mf.filter;
  let episodeStart = false;
  const heldTilt = mf.heldTilt;
  if (heldTilt) {
    const reset = heldTilt.reset.bind(heldTilt);
    heldTilt.reset = () => {
      episodeStart = true;
      reset();
    };
  }
  let restored: Call['restored'] = undefined;
  if (heldTilt) {
    const restore = heldTilt.restoreGrasp.bind(heldTilt);
    heldTilt.restoreGrasp = (r, handed = null) => {
      restored = {
        lastGrip: Number.isNaN(r.lastGrip) ? null : r.lastGrip,
        pose: r.pose ? Array.from(r.pose) : null,
        axis: r.axis ? Array.from(r.axis) : null,
        heldAxis: handed ? Array.from(handed) : null,
      };
      restore(r, handed);
    };
  }
  const axisBuf = new Float64Array(3);
  filters.set('cbf', {
    ...mf,
    filter: {
      filter: (nominal, horizon, q0, dt, deadline) => {
        const spheres = mf.groups.map((g) => Array.from(g.spheres));
        const heldAxis = heldTilt?.objectAxis?.axis(axisBuf) ? Array.from(axisBuf) : null;
        const start = episodeStart;
        episodeStart = false;
        const handedNow = restored;
        restored = undefined;
        const o = inner.filter(nominal, horizon, q0, dt, deadline);
        calls.push({
          heldAxis,
          episodeStart: start,
          ...(handedNow ? { restored: handedNow } : {}),
          nominal: Array.from(nominal),
          horizon,
          q0: Array.from(q0),
          dt,
          spheres,
          status: o.status,
          targets: Array.from(o.targets),
        });
        return o;
      },
    },
  });
  await loadMujoco();
  const t0 = performance.now();
  const results = await runFragilePilot({ arm, modes: ['cbf'], episodes: seeds, seed: 1, filters }, () => {});
  const ok = results.filter((r) => r.success).length;
  const contacts = results.filter((r) => r.contact).length;
  writeFileSync(file, JSON.stringify({ arm, seeds, calls }));
  console.log(
    `${arm} cbf, ${seeds} seeds: ${ok} successes, ${contacts} with contact, ${results.filter((r) => r.held).length} held; ` +
      `${calls.length} calls → ${file} (${((performance.now() - t0) / 1000).toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)})`,
  );
  for (const r of results.filter((x) => !x.success || x.contact))
    console.log(`  seed ${r.seed}: ${r.success ? 'success' : r.reason}${r.held ? `; held: ${r.holdReason}` : ''}`);
} else if (cmd === 'replay') {
  const { calls } = JSON.parse(readFileSync(a3!, 'utf8')) as { calls: Call[] };
  const rounds = Number(a4 ?? '10');
  const mf = freshFilter();
  // --accel A: the same filter with acceleration rows |Δ²u| ≤ A·dt² on every joint (CbfFilterConfig.maxAcceleration)
  // --no-screen: the same filter without the redundant-row screen (CbfFilterConfig.screenRows false)
  const accelArg = process.argv.indexOf('--accel');
  const noScreen = process.argv.includes('--no-screen');
  // --clear-tolerance T: CbfFilterConfig.clearRoundTolerance = T (m)
  const clearArg = process.argv.indexOf('--clear-tolerance');
  const clear = clearArg > 0 ? Number(process.argv[clearArg + 1]) : null;
  // --first-iterations N: CbfFilterConfig.firstRoundIterations (N ≥ the filter's maxIterations: no cap)
  const capArg = process.argv.indexOf('--first-iterations');
  const cap = capArg > 0 ? Number(process.argv[capArg + 1]) : null;
  // --first-iterate N,MU: CbfFilterConfig.firstRoundIterate = { iterations: N, proximal: MU } (in place of firstRoundIterations)
  const iterateArg = process.argv.indexOf('--first-iterate');
  const iterate = iterateArg > 0 ? process.argv[iterateArg + 1]!.split(',').map(Number) : null;
  // --back-off B: CbfFilterConfig.backOff = B (m)
  const boArg = process.argv.indexOf('--back-off');
  const backOff = boArg > 0 ? Number(process.argv[boArg + 1]) : null;
  // --loose E: CbfFilterConfig.looseRoundTolerance = E
  const looseArg = process.argv.indexOf('--loose');
  const loose = looseArg > 0 ? Number(process.argv[looseArg + 1]) : null;
  if (
    accelArg > 0 ||
    noScreen ||
    clear !== null ||
    cap !== null ||
    iterate !== null ||
    backOff !== null ||
    loose !== null ||
    process.argv.includes('--loose-final')
  ) {
    const a = accelArg > 0 ? Number(process.argv[accelArg + 1]) : null;
    const inner = findCbf(mf.filter);
    if (!inner) throw new Error('no chunk CBF filter in the mode filter');
    const changed = new ChunkCbfFilter(inner.barrier, interiorPointSolver, {
      ...inner.config,
      ...(a === null ? {} : { maxAcceleration: inner.config.qmin.map(() => a) }),
      ...(noScreen ? { screenRows: false } : {}),
      ...(clear === null ? {} : { clearRoundTolerance: clear }),
      ...(cap === null ? {} : { firstRoundIterations: cap }),
      ...(iterate === null
        ? {}
        : { firstRoundIterations: undefined, firstRoundIterate: { iterations: iterate[0]!, proximal: iterate[1]! } }),
      ...(backOff === null ? {} : { backOff }),
      ...(loose === null ? {} : { looseRoundTolerance: loose }),
      ...(process.argv.includes('--loose-unfinished') ? { finishLooseRounds: false } : {}),
      ...(process.argv.includes('--loose-final') ? { looseSlackByRecheck: true, finishLooseRounds: false } : {}),
    });
    if (!replaceIn(mf.filter, inner, changed)) throw new Error('could not put the changed filter in place');
    if (a !== null) console.log(`acceleration rows: a_max ${a} rad/s² on every joint`);
    if (noScreen) console.log('redundant-row screen off');
    if (clear !== null) console.log(`clearRoundTolerance ${clear} m`);
    if (cap !== null) console.log(`firstRoundIterations ${cap}`);
    if (iterate !== null) console.log(`firstRoundIterate ${iterate[0]} iterations, proximal ${iterate[1]}`);
    if (backOff !== null) console.log(`backOff ${backOff} m`);
    if (loose !== null)
      console.log(
        `looseRoundTolerance ${loose}${process.argv.includes('--loose-unfinished') ? ', the ending round not finished tight' : ''}`,
      );
  }
  const inputs = calls.map((c) => ({ ...c, nominal: Float64Array.from(c.nominal), q0: Float64Array.from(c.q0) }));
  const cbf = findCbf(mf.filter);
  const best = calls.map(() => Infinity);
  const cpu: number[] = [];
  const status: string[] = [];
  const dTarget: number[] = [];
  const sqpRounds: number[] = [];
  const iterations: number[] = [];
  const rowsAll: number[] = [];
  const rowsScreened: number[] = [];
  const shortfall: number[] = [];
  const looseSolves: number[] = [];
  // --dump FILE: the replayed targets and max |u − u_nom| per call, to compare two variants call by call
  const modification: number[] = [];
  const replayed: number[][] = [];
  const tightSolves: number[] = [];
  const heldTiltStep = replayHeldTilt(mf);
  // CBF_REPLAY_ROUNDS=1: per modified call of the first pass, each round's interior-point
  // iterations and slack (s = needed slack), and the executed chunk's shortfall
  const perRound: string[] = [];
  if (process.env['CBF_REPLAY_ROUNDS'] && cbf) {
    let before = 0;
    cbf.trace = (round, slack) => {
      if (round === 1) before = 0;
      perRound.push(`${cbf.outcome.iterations - before}${slack > 1e-6 ? 's' : ''}`);
      before = cbf.outcome.iterations;
    };
  }
  const run = (i: number): ReturnType<typeof mf.filter.filter> => {
    const c = inputs[i]!;
    heldTiltStep(c);
    c.spheres.forEach((s, g) => mf.groups[g]!.spheres.set(s));
    return mf.filter.filter(c.nominal, c.horizon, c.q0, c.dt);
  };
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < inputs.length; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const o = run(i);
      const t = performance.now() - t0;
      const u = process.cpuUsage(c0);
      cpu.push((u.user + u.system) / 1000);
      if (t < best[i]!) best[i] = t;
      if (r === 0) {
        if (perRound.length > 0 && o.status !== 'unchanged')
          console.log(
            `  call ${i}: ${o.status}, rounds ${perRound.join(' ')} = ${cbf?.outcome.iterations} iterations, shortfall ${(1000 * (cbf?.outcome.cbfViolation ?? 0)).toFixed(3)} mm`,
          );
        perRound.length = 0;
        status.push(o.status);
        sqpRounds.push(cbf?.outcome.rounds ?? 0);
        iterations.push(cbf?.outcome.iterations ?? 0);
        shortfall.push(o.status === 'filtered' ? (cbf?.outcome.cbfViolation ?? 0) : 0);
        rowsAll.push(cbf?.rowStats.rows ?? 0);
        rowsScreened.push(cbf?.rowStats.screened ?? 0);
        looseSolves.push(cbf?.looseStats?.loose ?? 0);
        modification.push(o.status === 'filtered' ? o.modification : NaN);
        replayed.push(Array.from(o.targets));
        tightSolves.push(cbf?.looseStats?.tightened ?? 0);
        const rec = calls[i]!.targets;
        let d = 0;
        if (o.targets.length === rec.length)
          for (let k = 0; k < rec.length; k++) d = Math.max(d, Math.abs(o.targets[k]! - rec[k]!));
        else d = Infinity;
        dTarget.push(d);
      }
    }
  }
  // Split: timers around the barrier model and the solver of the cbf filter, one more pass.
  const split = { h: 0, gradient: 0, solve: 0, total: 0, hCalls: 0, gradCalls: 0, solves: 0 };
  if (cbf) {
    const b = cbf.barrier as BarrierModel & { h: BarrierModel['h']; gradient: BarrierModel['gradient'] };
    const h0 = b.h.bind(b);
    const g0 = b.gradient.bind(b);
    b.h = (q, out) => {
      const t = performance.now();
      const v = h0(q, out);
      split.h += performance.now() - t;
      split.hCalls++;
      return v;
    };
    b.gradient = (q, hOut, grad) => {
      const t = performance.now();
      g0(q, hOut, grad);
      split.gradient += performance.now() - t;
      split.gradCalls++;
    };
    const shapes = (cbf as unknown as { shapes: { solver: BoundQpSolver }[] }).shapes;
    for (const s of shapes) {
      const s0 = s.solver.solve.bind(s.solver);
      s.solver.solve = (o) => {
        const t = performance.now();
        const r = s0(o);
        split.solve += performance.now() - t;
        split.solves++;
        return r;
      };
    }
    for (let i = 0; i < inputs.length; i++) {
      const t = performance.now();
      run(i);
      split.total += performance.now() - t;
    }
  }
  if (process.env['CBF_REPLAY_TOP']) {
    const idx = best
      .map((_, i) => i)
      .sort((a, b) => best[b]! - best[a]!)
      .slice(0, Number(process.env['CBF_REPLAY_TOP']));
    for (const i of idx)
      console.log(
        `  call ${i}: ${best[i]!.toFixed(2)} ms, ${status[i]}, ${sqpRounds[i]} rounds, ${iterations[i]} iterations`,
      );
  }
  const modified = best.filter((_, i) => status[i] === 'filtered');
  const f2 = (x: { p50: number; p99: number }): string => `p50 ${x.p50.toFixed(2)} / p99 ${x.p99.toFixed(2)} ms`;
  const count = (s: string[]) => s.reduce<Record<string, number>>((a, x) => ((a[x] = (a[x] ?? 0) + 1), a), {});
  const changed = status.filter((s, i) => s !== calls[i]!.status).length;
  const worse = status.filter(
    (s, i) =>
      s !== 'filtered' && s !== 'unchanged' && (calls[i]!.status === 'filtered' || calls[i]!.status === 'unchanged'),
  ).length;
  const better = status.filter(
    (s, i) =>
      (s === 'filtered' || s === 'unchanged') && calls[i]!.status !== 'filtered' && calls[i]!.status !== 'unchanged',
  ).length;
  const sum = (x: number[]) => x.reduce((a, b) => a + b, 0);
  console.log(
    `node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${arm}, ${calls.length} recorded calls × ${rounds}`,
  );
  console.log(
    `per call best of ${rounds}: ${f2(p50p99(best))}, max ${Math.max(...best).toFixed(2)} ms; the ${modified.length} modified: ${f2(p50p99(modified))}`,
  );
  console.log(`every sample CPU: ${f2(p50p99(cpu))}`);
  console.log(
    `statuses now ${JSON.stringify(count(status))}, recorded ${JSON.stringify(count(calls.map((c) => c.status)))}; ${changed} changed (${worse} to a refusal, ${better} from one); max |Δtarget| over calls with equal status ${Math.max(0, ...dTarget.filter((d, i) => status[i] === calls[i]!.status && Number.isFinite(d))).toExponential(2)} rad`,
  );
  console.log(
    `SQP rounds ${sum(sqpRounds)} (most in a call ${Math.max(...sqpRounds)}), interior-point iterations ${sum(iterations)} (all calls; p99 / most in a call ${p50p99(iterations).p99.toFixed(1)} / ${Math.max(...iterations)})` +
      (split.solves > 0 ? `; QP solve ${(split.solve / split.solves).toFixed(3)} ms per solve in the timed pass` : ''),
  );
  console.log(
    `executed chunks' largest shortfall of the barrier condition ${(1000 * Math.max(0, ...shortfall)).toFixed(3)} mm (${shortfall.filter((x) => x > 1e-4).length} chunks over 0.1 mm); ` +
      `CBF rows in the QP solves ${sum(rowsAll)}, screened out ${sum(rowsScreened)} (${((100 * sum(rowsScreened)) / Math.max(1, sum(rowsAll))).toFixed(1)} %)`,
  );
  const mods = modification.filter((x) => Number.isFinite(x));
  console.log(
    `filtered chunks' max |u − u_nom|: mean ${(sum(mods) / Math.max(1, mods.length)).toFixed(4)}, max ${Math.max(0, ...mods).toFixed(4)} rad`,
  );
  const dumpArg = process.argv.indexOf('--dump');
  if (dumpArg > 0)
    writeFileSync(process.argv[dumpArg + 1]!, JSON.stringify({ status, modification, targets: replayed }));
  if (sum(looseSolves) > 0) console.log(`loose solves ${sum(looseSolves)}, finished tight ${sum(tightSolves)}`);
  if (cbf)
    console.log(
      `split (one timed pass, ${split.total.toFixed(1)} ms): barrier h ${split.h.toFixed(1)} ms (${split.hCalls} calls), gradient ${split.gradient.toFixed(1)} ms (${split.gradCalls}), QP solve ${split.solve.toFixed(1)} ms (${split.solves}), rest ${(split.total - split.h - split.gradient - split.solve).toFixed(1)} ms`,
    );
} else if (cmd === 'screen') {
  // The same calls through two filters built alike, the redundant-row screen on and off, in one
  // process, alternating which goes first per call: both see the same machine within milliseconds.
  const { calls } = JSON.parse(readFileSync(a3!, 'utf8')) as { calls: Call[] };
  const rounds = Number(a4 ?? '10');
  const inputs = calls.map((c) => ({ ...c, nominal: Float64Array.from(c.nominal), q0: Float64Array.from(c.q0) }));
  const variants = (process.env['SCREEN_FIRST'] === 'off' ? [false, true] : [true, false]).map((screenRows) => {
    const mf = freshFilter();
    const inner = findCbf(mf.filter);
    if (!inner) throw new Error('no chunk CBF filter in the mode filter');
    const cbf = new ChunkCbfFilter(inner.barrier, interiorPointSolver, { ...inner.config, screenRows });
    if (!replaceIn(mf.filter, inner, cbf)) throw new Error('could not put the filter in place');
    const stats = calls.map(() => ({
      best: Infinity,
      cpu: 0,
      status: '',
      rounds: 0,
      iterations: 0,
      rows: 0,
      screened: 0,
      targets: new Float64Array(0),
    }));
    return { name: screenRows ? 'screened' : 'unscreened', mf, cbf, stats, heldTiltStep: replayHeldTilt(mf) };
  });
  timeInterleaved(inputs, variants, rounds, (v, st) => {
    st.rows = v.cbf.rowStats.rows;
    st.screened = v.cbf.rowStats.screened;
  });
  const on = variants.find((v) => v.name === 'screened')!;
  const off = variants.find((v) => v.name === 'unscreened')!;
  const sum = (x: number[]) => x.reduce((a, b) => a + b, 0);
  console.log(
    `node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${arm}, ${calls.length} recorded calls × ${rounds}, screened and unscreened alternating`,
  );
  let dMax = 0;
  let statusDiff = 0;
  let roundsDiff = 0;
  for (let i = 0; i < calls.length; i++) {
    const a = on.stats[i]!;
    const b = off.stats[i]!;
    if (a.status !== b.status) statusDiff++;
    if (a.rounds !== b.rounds) roundsDiff++;
    if (a.status === b.status && a.targets.length === b.targets.length)
      for (let k = 0; k < a.targets.length; k++) dMax = Math.max(dMax, Math.abs(a.targets[k]! - b.targets[k]!));
    if (process.env['CBF_REPLAY_DIFF'] && (a.status !== b.status || a.rounds !== b.rounds))
      console.log(
        `  call ${i}: screened ${a.status} ${a.rounds} rounds ${a.iterations} it; unscreened ${b.status} ${b.rounds} rounds ${b.iterations} it`,
      );
  }
  console.log(
    `statuses differ in ${statusDiff} calls, SQP rounds in ${roundsDiff}; max |Δtarget| screened − unscreened over equal statuses ${dMax.toExponential(2)} rad`,
  );
  for (const v of variants) {
    const best = v.stats.map((x) => x.best);
    const modified = v.stats.filter((x) => x.status === 'filtered').map((x) => x.best);
    const f2 = (x: { p50: number; p99: number }): string => `p50 ${x.p50.toFixed(2)} / p99 ${x.p99.toFixed(2)} ms`;
    console.log(
      `${v.name}: CPU ${(sum(v.stats.map((x) => x.cpu)) / rounds).toFixed(1)} ms per pass; per call best of ${rounds} ${f2(p50p99(best))}, modified ${f2(p50p99(modified))}; ` +
        `SQP rounds ${sum(v.stats.map((x) => x.rounds))}, iterations ${sum(v.stats.map((x) => x.iterations))}, ` +
        `CBF rows ${sum(v.stats.map((x) => x.rows))} of which screened ${sum(v.stats.map((x) => x.screened))}`,
    );
  }
} else if (cmd === 'filter-polish') {
  // The whole filter with the interior point alone and with QpSolveOptions.polishFromWarmStart
  // (each SQP round that has a dual warm start first tries the previous round's active set), two
  // filters built alike in one process, alternating which goes first per call (as `screen`):
  // outcomes, rounds, iterations, polishes and CPU side by side.
  const { calls } = JSON.parse(readFileSync(a3!, 'utf8')) as { calls: Call[] };
  const rounds = Number(a4 ?? '10');
  const inputs = calls.map((c) => ({ ...c, nominal: Float64Array.from(c.nominal), q0: Float64Array.from(c.q0) }));
  const order = process.env['POLISH_FIRST'] === 'on' ? [true, false] : [false, true];
  const variants = order.map((warmPolish) => {
    const mf = freshFilter();
    const inner = findCbf(mf.filter);
    if (!inner) throw new Error('no chunk CBF filter in the mode filter');
    const solvers: QpSolver[] = [];
    // the filter's own options object copied into one preallocated object per shape, plus the option
    const factory = (problem: QpProblem): BoundQpSolver => {
      const solver = new QpSolver(problem);
      solvers.push(solver);
      const opts: { -readonly [K in keyof QpSolveOptions]: QpSolveOptions[K] } = {};
      return {
        solve: (o) => {
          opts.maxIterations = o.maxIterations;
          opts.epsAbs = o.epsAbs;
          opts.epsRel = o.epsRel;
          opts.deadline = o.deadline;
          opts.warmStart = o.warmStart;
          opts.warmStartDual = o.warmStartDual;
          opts.resume = o.resume;
          opts.polishFromWarmStart = warmPolish;
          return solver.solve(problem, opts);
        },
      };
    };
    const cbf = new ChunkCbfFilter(inner.barrier, factory, inner.config);
    if (!replaceIn(mf.filter, inner, cbf)) throw new Error('could not put the filter in place');
    const stats = calls.map(() => ({
      best: Infinity,
      cpu: 0,
      status: '',
      rounds: 0,
      iterations: 0,
      targets: new Float64Array(0),
    }));
    return {
      name: warmPolish ? 'warm polish' : 'interior point',
      mf,
      cbf,
      solvers,
      stats,
      heldTiltStep: replayHeldTilt(mf),
    };
  });
  timeInterleaved(inputs, variants, rounds);
  const sum = (x: number[]) => x.reduce((a, b) => a + b, 0);
  console.log(
    `node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${arm}, ${calls.length} recorded calls × ${rounds}, both filters alternating`,
  );
  const [a, b] = [variants.find((v) => v.name === 'interior point')!, variants.find((v) => v.name === 'warm polish')!];
  let dMax = 0;
  const diffs: string[] = [];
  for (let i = 0; i < calls.length; i++) {
    const x = a.stats[i]!;
    const y = b.stats[i]!;
    if (x.status !== y.status || x.rounds !== y.rounds)
      diffs.push(`call ${i}: ${x.status} ${x.rounds} rounds → ${y.status} ${y.rounds} rounds`);
    if (x.status === y.status && x.targets.length === y.targets.length)
      for (let k = 0; k < x.targets.length; k++) dMax = Math.max(dMax, Math.abs(x.targets[k]! - y.targets[k]!));
  }
  console.log(
    `status or rounds differ: ${diffs.length === 0 ? 'none' : diffs.join('; ')}; max |Δtarget| over equal statuses ${dMax.toExponential(2)} rad; ` +
      `statuses vs the recording: interior point ${a.stats.filter((x, i) => x.status !== calls[i]!.status).length} differ, warm polish ${b.stats.filter((x, i) => x.status !== calls[i]!.status).length} differ`,
  );
  for (const v of variants) {
    const best = v.stats.map((x) => x.best);
    const modified = v.stats.filter((x) => x.status === 'filtered').map((x) => x.best);
    const its = v.stats.map((x) => x.iterations);
    const f2 = (x: { p50: number; p99: number }): string => `p50 ${x.p50.toFixed(2)} / p99 ${x.p99.toFixed(2)} ms`;
    const pc = v.solvers.reduce(
      (acc, s) => ({
        attempts: acc.attempts + s.polishCounts.attempts,
        accepted: acc.accepted + s.polishCounts.accepted,
        sweeps: acc.sweeps + s.polishCounts.sweeps,
      }),
      { attempts: 0, accepted: 0, sweeps: 0 },
    );
    console.log(
      `${v.name}: CPU ${(sum(v.stats.map((x) => x.cpu)) / rounds).toFixed(1)} ms per pass; per call best of ${rounds} ${f2(p50p99(best))}, modified ${f2(p50p99(modified))}; ` +
        `SQP rounds ${sum(v.stats.map((x) => x.rounds))}, IP iterations ${sum(its)} (p99 / most in a call ${p50p99(its).p99.toFixed(1)} / ${Math.max(...its)}); ` +
        `polish per pass: ${(pc.attempts / rounds).toFixed(0)} tried, ${(pc.accepted / rounds).toFixed(0)} accepted, ${(pc.sweeps / rounds).toFixed(0)} factorisations`,
    );
  }
} else if (cmd === 'qp') {
  // The filter's own QPs, screened and unscreened: one pass of the calls (screen on) keeps every QP
  // as solved (values, bounds before and after the screen, the round's warm start); then each is
  // solved both ways, alternating which goes first, R times with one solver. Same solver, same
  // data, so CPU and iterations compare the screen alone.
  const { calls } = JSON.parse(readFileSync(a3!, 'utf8')) as { calls: Call[] };
  const rounds = Number(a4 ?? '10');
  const mf = freshFilter();
  const cbf = findCbf(mf.filter);
  if (!cbf) throw new Error('no chunk CBF filter in the mode filter');
  interface Kept {
    qp: ChunkQp;
    P: Float64Array;
    q: Float64Array;
    A: Float64Array;
    full: Float64Array;
    screened: Float64Array;
    u: Float64Array;
    warm?: Float64Array;
    warmDual?: Float64Array;
  }
  const kept: Kept[] = [];
  const screen = ChunkQp.prototype.screenImpliedRows;
  const options = (cbf as unknown as { solveOptions: QpSolveOptions }).solveOptions;
  ChunkQp.prototype.screenImpliedRows = function (this: ChunkQp): number {
    const full = Float64Array.from(this.problem.l);
    const freed = screen.call(this);
    const pr = this.problem;
    kept.push({
      qp: this,
      P: Float64Array.from(pr.P.values),
      q: Float64Array.from(pr.q),
      A: Float64Array.from(pr.A.values),
      full,
      screened: Float64Array.from(pr.l),
      u: Float64Array.from(pr.u),
      ...(options.warmStart ? { warm: Float64Array.from(options.warmStart) } : {}),
      ...(options.warmStartDual ? { warmDual: Float64Array.from(options.warmStartDual) } : {}),
    });
    return freed;
  };
  const heldTiltStep = replayHeldTilt(mf);
  for (const c of calls) {
    heldTiltStep(c);
    c.spheres.forEach((sp, g) => mf.groups[g]!.spheres.set(sp));
    mf.filter.filter(Float64Array.from(c.nominal), c.horizon, Float64Array.from(c.q0), c.dt);
  }
  ChunkQp.prototype.screenImpliedRows = screen;
  // --eps E: solve at tolerance E (and up to 200 iterations) instead of the filter's
  const epsArg = process.argv.indexOf('--eps');
  const eps = epsArg > 0 ? Number(process.argv[epsArg + 1]) : null;
  const solvers = new Map<ChunkQp, QpSolver>();
  const tally = { full: { cpu: 0, iterations: 0 }, screened: { cpu: 0, iterations: 0 } };
  let dx = 0;
  let failed = 0;
  for (let r = 0; r <= rounds; r++) {
    kept.forEach((k, i) => {
      const pr = k.qp.problem;
      let solver = solvers.get(k.qp);
      if (!solver) solvers.set(k.qp, (solver = new QpSolver(pr)));
      pr.P.values.set(k.P);
      pr.q.set(k.q);
      pr.A.values.set(k.A);
      pr.u.set(k.u);
      const opts: QpSolveOptions = {
        maxIterations: eps === null ? (options.maxIterations ?? 40) : 200,
        epsAbs: eps ?? options.epsAbs ?? 1e-6,
        epsRel: eps ?? options.epsRel ?? 1e-6,
        ...(k.warm ? { warmStart: k.warm } : {}),
        ...(k.warmDual ? { warmStartDual: k.warmDual } : {}),
      };
      const xs: Float64Array[] = [];
      for (const which of (r + i) % 2 === 0 ? (['full', 'screened'] as const) : (['screened', 'full'] as const)) {
        pr.l.set(which === 'full' ? k.full : k.screened);
        const c0 = process.cpuUsage();
        const res = solver.solve(pr, opts);
        const used = process.cpuUsage(c0);
        if (res.status !== 'solved') failed++;
        if (r > 0) {
          // pass 0 warms up
          tally[which].cpu += (used.user + used.system) / 1000;
          tally[which].iterations += res.iterations;
        }
        xs.push(Float64Array.from(res.x.subarray(0, k.qp.nu)));
      }
      for (let j = 0; j < k.qp.nu; j++) dx = Math.max(dx, Math.abs(xs[0]![j]! - xs[1]![j]!));
    });
  }
  const rows = kept.reduce((a, k) => a + k.qp.H * k.qp.m, 0);
  const freedRows = kept.reduce((a, k) => a + k.screened.filter((v, i) => v !== k.full[i]).length, 0);
  console.log(
    `node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        ' ',
      )}; ${arm}: ${kept.length} QPs of the filter (${freedRows} of ${rows} CBF rows screened), each solved ${rounds} × both ways after a warm-up pass`,
  );
  for (const which of ['full', 'screened'] as const)
    console.log(
      `${which === 'full' ? 'unscreened' : 'screened'}: ${(tally[which].cpu / rounds / kept.length).toFixed(3)} ms CPU per solve, ${(tally[which].iterations / rounds).toFixed(0)} iterations per pass`,
    );
  console.log(
    `screened ÷ unscreened CPU ${(tally.screened.cpu / tally.full.cpu).toFixed(3)}; max |Δu| between the two optima ${dx.toExponential(2)} rad; ${failed} solves not 'solved'`,
  );
} else if (cmd === 'polish') {
  // The filter's own QPs (one pass of the calls as the filter runs them, each QP kept with the
  // round's warm start) solved with the interior point alone and with its active-set polish,
  // alternating which goes first, R times with one solver per shape: iterations, CPU, how often
  // the polish was tried and accepted, and how the two answers differ.
  const { calls } = JSON.parse(readFileSync(a3!, 'utf8')) as { calls: Call[] };
  const rounds = Number(a4 ?? '10');
  const mf = freshFilter();
  const cbf = findCbf(mf.filter);
  if (!cbf) throw new Error('no chunk CBF filter in the mode filter');
  const options = (cbf as unknown as { solveOptions: QpSolveOptions }).solveOptions;
  interface KeptQp {
    qp: ChunkQp;
    P: Float64Array;
    q: Float64Array;
    A: Float64Array;
    l: Float64Array;
    u: Float64Array;
    warm?: Float64Array;
    warmDual?: Float64Array;
  }
  const kept: KeptQp[] = [];
  const screen = ChunkQp.prototype.screenImpliedRows;
  ChunkQp.prototype.screenImpliedRows = function (this: ChunkQp): number {
    const freed = screen.call(this);
    const pr = this.problem;
    kept.push({
      qp: this,
      P: Float64Array.from(pr.P.values),
      q: Float64Array.from(pr.q),
      A: Float64Array.from(pr.A.values),
      l: Float64Array.from(pr.l),
      u: Float64Array.from(pr.u),
      ...(options.warmStart ? { warm: Float64Array.from(options.warmStart) } : {}),
      ...(options.warmStartDual ? { warmDual: Float64Array.from(options.warmStartDual) } : {}),
    });
    return freed;
  };
  const heldTiltStep = replayHeldTilt(mf);
  for (const c of calls) {
    heldTiltStep(c);
    c.spheres.forEach((sp, g) => mf.groups[g]!.spheres.set(sp));
    mf.filter.filter(Float64Array.from(c.nominal), c.horizon, Float64Array.from(c.q0), c.dt);
  }
  ChunkQp.prototype.screenImpliedRows = screen;
  const epsArg = process.argv.indexOf('--eps');
  const eps = epsArg > 0 ? Number(process.argv[epsArg + 1]) : null;
  // --mode iterate|warm|both: polish from the iterate, from the dual warm start's active set, or both
  const modeArg = process.argv.indexOf('--mode');
  const polishMode = modeArg > 0 ? process.argv[modeArg + 1]! : 'both';
  const solvers = new Map<ChunkQp, QpSolver>();
  const variants = ['ip', 'polish'] as const;
  const tally = { ip: { cpu: 0, iterations: 0, solved: 0 }, polish: { cpu: 0, iterations: 0, solved: 0 } };
  const perQp = kept.map(() => ({ ip: 0, polish: 0 }));
  let dx = 0;
  let dObj = 0;
  let dSlack = 0;
  let worstViolation = 0;
  let polishedCount = 0;
  const statusDiff: string[] = [];
  for (let r = 0; r <= rounds; r++) {
    kept.forEach((k, i) => {
      const pr = k.qp.problem;
      let solver = solvers.get(k.qp);
      if (!solver) solvers.set(k.qp, (solver = new QpSolver(pr)));
      pr.P.values.set(k.P);
      pr.q.set(k.q);
      pr.A.values.set(k.A);
      pr.l.set(k.l);
      pr.u.set(k.u);
      const base = {
        maxIterations: eps === null ? (options.maxIterations ?? 40) : 200,
        epsAbs: eps ?? options.epsAbs ?? 1e-6,
        epsRel: eps ?? options.epsRel ?? 1e-6,
        ...(k.warm ? { warmStart: k.warm } : {}),
        ...(k.warmDual ? { warmStartDual: k.warmDual } : {}),
      };
      const res: Record<string, { x: Float64Array; obj: number; status: string; polished: boolean }> = {};
      for (const which of (r + i) % 2 === 0 ? variants : [...variants].reverse()) {
        const opts: QpSolveOptions = {
          ...base,
          polish: which === 'polish' && polishMode !== 'warm',
          polishFromWarmStart: which === 'polish' && polishMode !== 'iterate',
        };
        const c0 = process.cpuUsage();
        const out = solver.solve(pr, opts);
        const used = process.cpuUsage(c0);
        if (r > 0) {
          tally[which].cpu += (used.user + used.system) / 1000;
          tally[which].iterations += out.iterations;
          if (out.status === 'solved') tally[which].solved++;
        } else {
          perQp[i]![which] = out.iterations;
          if (which === 'polish' && out.polished) polishedCount++;
          if (which === 'polish') worstViolation = Math.max(worstViolation, out.maxViolation);
        }
        res[which] = { x: Float64Array.from(out.x), obj: out.objective, status: out.status, polished: out.polished };
      }
      if (r === 0) {
        const a = res['ip']!;
        const b = res['polish']!;
        if (a.status !== b.status) statusDiff.push(`QP ${i}: ${a.status} → ${b.status}`);
        for (let j = 0; j < k.qp.nu; j++) dx = Math.max(dx, Math.abs(a.x[j]! - b.x[j]!));
        let sa = 0;
        let sb = 0;
        for (let j = k.qp.nu; j < a.x.length; j++) {
          sa += Math.max(0, a.x[j]!);
          sb += Math.max(0, b.x[j]!);
        }
        dSlack = Math.max(dSlack, Math.abs(sa - sb));
        dObj = Math.max(dObj, Math.abs(a.obj - b.obj) / Math.max(1, Math.abs(a.obj)));
      }
    });
  }
  const counts = [...solvers.values()].reduce(
    (acc, s) => ({
      attempts: acc.attempts + s.polishCounts.attempts,
      accepted: acc.accepted + s.polishCounts.accepted,
      sweeps: acc.sweeps + s.polishCounts.sweeps,
      passes: acc.passes + s.polishCounts.passes,
    }),
    { attempts: 0, accepted: 0, sweeps: 0, passes: 0 },
  );
  const its = (w: 'ip' | 'polish') => perQp.map((p) => p[w]).sort((a, b) => a - b);
  const pct = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  console.log(
    `node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        ' ',
      )}; ${arm}: ${kept.length} QPs of the filter, tolerance ${eps ?? options.epsAbs}, each solved ${rounds} × both ways after a pass that compares them`,
  );
  for (const w of variants)
    console.log(
      `${w === 'ip' ? 'interior point only' : 'with the polish'}: ${(tally[w].cpu / rounds / kept.length).toFixed(3)} ms CPU per solve, ${(tally[w].iterations / rounds).toFixed(0)} iterations per pass (per QP p50 ${pct(its(w), 0.5)}, p99 ${pct(its(w), 0.99)}, max ${Math.max(...its(w))}), ${tally[w].solved / rounds} solved per pass`,
    );
  console.log(
    `polish ÷ ip CPU ${(tally.polish.cpu / tally.ip.cpu).toFixed(3)}; polished ${polishedCount} of ${kept.length} QPs; attempts ${counts.attempts}, accepted ${counts.accepted}, factorisations ${counts.sweeps}, refinement passes ${counts.passes} (all passes); ` +
      `max |Δu| ${dx.toExponential(2)} rad, max |ΔΣξ| ${dSlack.toExponential(2)}, max relative |Δobjective| ${dObj.toExponential(2)}, max violation with the polish ${worstViolation.toExponential(2)}; statuses differ: ${statusDiff.length === 0 ? 'none' : statusDiff.join(', ')}`,
  );
} else if (cmd === 'garbage') {
  // Bytes allocated per filter call, garbage included (bench/sampled-allocation.ts): the recorded
  // calls in order, R passes after a warm-up pass. Garbage the filter leaves is collected later,
  // often inside another filter call while the episode around it allocates.
  const { calls } = JSON.parse(readFileSync(a3!, 'utf8')) as { calls: Call[] };
  const rounds = Number(a4 ?? '2');
  const mf = freshFilter();
  const heldTiltStep = replayHeldTilt(mf);
  const inputs = calls.map((c) => ({ ...c, nominalF: Float64Array.from(c.nominal), q0F: Float64Array.from(c.q0) }));
  let next = 0;
  const one = (): number => {
    const c = inputs[next++ % inputs.length]!;
    heldTiltStep(c);
    c.spheres.forEach((sp, g) => mf.groups[g]!.spheres.set(sp));
    mf.filter.filter(c.nominalF, c.horizon, c.q0F, c.dt);
    return 1;
  };
  for (let i = 0; i < inputs.length; i++) one();
  const a = await sampledAllocation(one, rounds * inputs.length);
  console.log(
    `${arm}: ${a.units} filter calls (${rounds} passes of the ${inputs.length} recorded), bytes allocated per call: ` +
      `src/ ${a.src}, test/ ${a.test}, other (Node, V8 builtins such as subarray, this bench) ${a.other}; total ${a.src + a.test + a.other}`,
  );
  for (const { site, bytes } of a.sites) console.log(`  ${String(bytes).padStart(6)} B  ${site}`);
} else {
  throw new Error(
    'usage: cbf-replay.ts record <arm> <seeds> <file> | replay|screen|qp|polish|filter-polish|garbage <arm> <file> [rounds]',
  );
}

/** Replaces `from` by `to` wherever a field of the wrappers around it holds it. */
function replaceIn(f: unknown, from: unknown, to: unknown, depth = 0): boolean {
  if (depth > 4 || f === null || typeof f !== 'object') return false;
  let done = false;
  for (const [k, v] of Object.entries(f as Record<string, unknown>)) {
    if (v === from) {
      (f as Record<string, unknown>)[k] = to;
      done = true;
    } else if (replaceIn(v, from, to, depth + 1)) done = true;
  }
  return done;
}

/** The ChunkCbfFilter inside the pilot's wrappers (ArmColumnsFilter → HeldTilt glue → …). */
function findCbf(f: unknown, depth = 0): ChunkCbfFilter | null {
  if (f instanceof ChunkCbfFilter) return f;
  if (depth > 4 || f === null || typeof f !== 'object') return null;
  for (const v of Object.values(f as Record<string, unknown>)) {
    const found = findCbf(v, depth + 1);
    if (found) return found;
  }
  return null;
}
