/**
 * `armguard demo --scenario fragile-obstacle` (issue 15; seeds/001 App. 0.D, Fig. A.8): the scripted
 * policy carries a cup through a fragile bottle, on the same seeds in every gate mode — off, hold
 * (monitors + the hold-only chunk check), cbf (the chunk-level CBF, Eq. A.3) and stepwise (the
 * action-wise baseline, Eq. A.2) — and prints success, contacts, tip-overs, SBU, holds, correction
 * size, smoothness and filter time per mode; writes a page with the top-down paths and the
 * correction over time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FRAGILE_POLICY, loadMujoco, pandaScene, so101Scene, type FragileArm } from '../../../../drivers/sim/index.js';
import { fragileReportHtml, type FragileScenePlot } from '../../../report/render/fragile-paths.js';
import { EXIT, parseArgs, type CliIo } from '../../command.js';
import { defaultSpecPaths, loadScoringSpec } from '../../spec-files.js';
import { demoClauses, demoPlatform } from '../clauses.js';
import { runFragileEpisode, type FragileEpisodeResult, type FragileFilterCache } from './episode.js';
import { parseModes } from '../metrics.js';
import { FRAGILE_MODES, type FragileMode } from './filters.js';
import { fragileJson, fragileProgressLine, fragileTable, fragileTableCells, roughnessRatio } from './summary.js';

const DEFAULT_EPISODES = 3;
const SCENES: Readonly<Record<FragileArm, typeof pandaScene>> = { so101: so101Scene, panda: pandaScene };

export const FRAGILE_HELP = `usage: armguard demo --scenario fragile-obstacle [--modes off,hold,cbf,stepwise] [--episodes N] [--scene so101|panda] [--json]

The fragile-obstacle pilot (seeds/001 Fig. A.8) in the MuJoCo testbed: a scripted policy carries a
cup to a box in 30 Hz, H = 50 chunks straight through a fragile bottle (a free body: pushed, it
tips). Cup, box and bottle placements are drawn per seed (±5 cm, ±15° yaw); every mode runs the
same seeds. Modes: off (monitors record only), hold (monitors + hold; a chunk that would come
within d_safe of the bottle is held, never changed), cbf (the chunk-level CBF of Eq. A.3 bends the
chunk around the bottle, held-object tilt kept under its clause limit), stepwise (the action-wise
CBF of Eq. A.2 step by step — a baseline for comparison only). The bottle reaches the gate like
motion capture (tracked body → barrier spheres); contacts and tip-overs are MuJoCo's.
Prints per mode: success, obstacle contacts, tip-overs, SBU, holds, mean/max ‖U − U_nom‖, path
length, mean squared jerk of the executed joint targets, correction sign reversals per second,
filter time p50/p99 (wall and CPU), and the stepwise ÷ cbf roughness ratio; records every
episode to DIR/episodes/<run>/<id>.mcap (frames, ρ per clause, proposed/executed chunks, gate
transitions), labelled success/failure by the task predicate (cup in the box) with policy
'${FRAGILE_POLICY}/gate-<mode>'; writes DIR/fragile-report.html (top-down paths per mode,
correction over time).

options:
  --modes a,b        subset of ${FRAGILE_MODES.join(',')} (default all)
  --episodes N       seeds per mode (default ${DEFAULT_EPISODES})
  --seed S           first seed (default 1)
  --scene ID         panda (default) or so101
  --out DIR          where the episodes and the page go (default ./demo-out)
  --no-report        do not write the page
  --json             print only {"modes": {...}, "policies": {...}} on stdout (progress on stderr)

examples:
  armguard demo --scenario fragile-obstacle
  armguard demo --scenario fragile-obstacle --modes off,cbf --episodes 20 --scene so101 --json`;

export interface FragileRunOptions {
  readonly arm: FragileArm;
  readonly modes: readonly FragileMode[];
  readonly episodes: number;
  readonly seed: number;
  /** The mode filters to use (filled as they are built); a fresh set when absent. */
  readonly filters?: FragileFilterCache;
  readonly recordFilterCalls?: boolean;
  /** Record every episode into this folder (`gate-<mode>-<policy>-s<seed>.mcap`); absent: nothing is written. */
  readonly recordDir?: string;
}

/** Runs every mode on the same seeds; `log` gets one line per episode. */
export async function runFragilePilot(
  o: FragileRunOptions,
  log: (line: string) => void,
): Promise<FragileEpisodeResult[]> {
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('; '));
  // The clauses the scene's declared signals allow (the Panda scene has no self-collision signal).
  const clauses = demoClauses(spec.spec, demoPlatform(o.arm), undefined, SCENES[o.arm]().signals);
  if (!clauses.ok) throw new Error(`cannot plan the clauses for the simulator: ${clauses.reason}`);
  const mj = await loadMujoco();
  const results: FragileEpisodeResult[] = [];
  const total = o.modes.length * o.episodes;
  // One filter per mode for the whole run, as a gate keeps its filter for a session.
  const filters: FragileFilterCache = o.filters ?? new Map();
  for (const mode of o.modes) {
    for (let e = 0; e < o.episodes; e++) {
      const seed = o.seed + e;
      const r = await runFragileEpisode({
        mj,
        arm: o.arm,
        mode,
        seed,
        clauses: clauses.instances,
        filters,
        recordFilterCalls: o.recordFilterCalls ?? false,
        ...(o.recordDir === undefined
          ? {}
          : {
              record: {
                dir: o.recordDir,
                episodeId: `gate-${mode}-${FRAGILE_POLICY}-s${seed}`,
                startedAt: new Date().toISOString(),
              },
            }),
      });
      results.push(r);
      log(fragileProgressLine(r, results.length, total));
    }
  }
  return results;
}

/** The plot input for one seed: every mode's run of it. */
export function scenePlot(
  results: readonly FragileEpisodeResult[],
  arm: FragileArm,
  seed: number,
): FragileScenePlot | null {
  const runs = results.filter((r) => r.arm === arm && r.seed === seed);
  const first = runs[0];
  if (!first) return null;
  const boxHalf = SCENES[arm]().box.innerHalf[0];
  return {
    title: `${arm}, seed ${seed}`,
    bottle: first.bottle,
    cup: first.cup,
    box: first.box,
    boxHalf,
    runs: runs.map((r) => ({
      mode: r.mode,
      tcp: r.tcp,
      correction: r.correction,
      dt: r.dt,
      outcome: `${r.success ? 'success' : 'failure'}${r.contact ? ', contact' : ''}${r.tipped ? ', tipped' : ''}${r.held ? ', held' : ''}`,
    })),
  };
}

export async function fragileObstacleCommand(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args, {
    strings: ['scenario', 'modes', 'episodes', 'seed', 'scene', 'out'],
    booleans: ['json', 'no-report'],
  });
  const usage = (msg: string): number => {
    io.err(`armguard demo --scenario fragile-obstacle: ${msg}`);
    return EXIT.usage;
  };
  if (!parsed.ok) return usage(parsed.error);
  if (parsed.positionals.length > 0) return usage(`unexpected argument '${parsed.positionals[0]}'`);
  const opt = (k: string): string | undefined => {
    const v = parsed.options.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const episodes = Number(opt('episodes') ?? DEFAULT_EPISODES);
  if (!Number.isInteger(episodes) || episodes < 1 || episodes > 1000)
    return usage(`--episodes must be an integer 1…1000, got '${opt('episodes')}'`);
  const seed = Number(opt('seed') ?? 1);
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31)
    return usage(`--seed must be a non-negative integer, got '${opt('seed')}'`);
  const arm = opt('scene') ?? 'panda';
  if (arm !== 'so101' && arm !== 'panda') return usage(`--scene must be one of so101, panda, got '${arm}'`);
  const parsedModes = parseModes(opt('modes'), FRAGILE_MODES, FRAGILE_MODES);
  if (!parsedModes.ok) return usage(parsedModes.error);
  const modes: FragileMode[] = parsedModes.modes;
  const json = parsed.options.get('json') === true;
  const log = json ? (l: string): void => io.err(l) : (l: string): void => io.out(l);
  log(
    `armguard demo — fragile-obstacle pilot, scene ${arm}, modes ${modes.join(', ')}, seeds ${seed}…${seed + episodes - 1}`,
  );
  const outDir = resolve(opt('out') ?? 'demo-out');
  // One folder per run, as the default scenario's episodes, so a second run is not mixed into it.
  const recordDir = join(
    outDir,
    'episodes',
    new Date()
      .toISOString()
      .replace(/[^0-9]/g, '')
      .slice(0, 14),
  );
  log(`recording to ${recordDir}`);
  let results: FragileEpisodeResult[];
  try {
    results = await runFragilePilot({ arm, modes, episodes, seed, recordDir }, log);
  } catch (e) {
    io.err(`armguard demo: ${(e as Error).message}`);
    return EXIT.failure;
  }
  const table = fragileTable(results, modes);
  for (const l of table) log(l);
  const ratio = roughnessRatio(results);
  if (Number.isFinite(ratio.jerk)) {
    log(
      `roughness stepwise ÷ cbf: mean squared jerk ${ratio.jerk.toFixed(2)}×, correction sign reversals per second ${ratio.reversals.toFixed(2)}×${ratio.jerk < 1 ? ' (the chunk-level filter was NOT smoother in jerk)' : ''}`,
    );
  }
  if (parsed.options.get('no-report') !== true) {
    const path = join(outDir, 'fragile-report.html');
    try {
      mkdirSync(outDir, { recursive: true });
      const plot = scenePlot(results, arm, seed);
      const cells = fragileTableCells(results, modes);
      writeFileSync(
        path,
        fragileReportHtml(`armguard demo: fragile-obstacle pilot (${arm})`, cells, plot ? [plot] : [], [
          `${episodes} seed(s) per mode, the same seeds in every mode; the plots show seed ${seed}.`,
        ]),
      );
      log(`report written: ${path}`);
    } catch (e) {
      io.err(`armguard demo: cannot write ${path}: ${(e as Error).message}`);
      return EXIT.failure;
    }
  }
  if (json) io.out(JSON.stringify(fragileJson(results, modes)));
  return EXIT.ok;
}
