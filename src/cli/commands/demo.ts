/**
 * `armguard demo` (issues 9, 15): a pilot in the MuJoCo testbed. Every scripted policy runs N
 * episodes in each gate mode (default off, hold, cbf); each episode is recorded (MCAP) and
 * labelled by the task predicate; then the safety report is written over the recorded episodes.
 * The summary shows one column per mode, never a pooled figure.
 */
import { join, resolve } from 'node:path';
import { EXIT, parseArgs, type Command, type CliIo } from '../command.js';
import {
  DlsIk,
  POLICIES,
  SimWorld,
  loadMujoco,
  pandaScene,
  policyByName,
  so101Scene,
  type PolicyDefinition,
} from '../../../drivers/sim/index.js';
import { defaultSpecPaths, loadScoringSpec } from '../spec-files.js';
import { DEMO_TASK, demoClauses, demoPlatform } from '../demo/clauses.js';
import { PILOT_MODES, runDemoEpisode, type DemoEpisodeResult, type GateMode } from '../demo/episode.js';
import { demoJson, modeHeadlines, parseModes } from '../demo/metrics.js';
import { progressLine, summaryTable } from '../demo/summary.js';
import { SimCbfPath, type SimCbfOptions } from '../demo/sim-cbf.js';
import { FRANKA_DQ_MAX } from '../../rigs/franka.js';
import { reportCommand } from './report.js';
import { DEMO_SCENARIOS, pickScenario } from '../demo/scenarios.js';
import { DemoPrevention } from '../demo/prevention.js';
import { TILT_PLANNING_MARGIN } from '../../gate/description-barrier.js';

export const DEMO_SCENES = { so101: so101Scene, panda: pandaScene } as const;
const SCENES = DEMO_SCENES;
export type SceneId = keyof typeof SCENES;

/** STS3215 at 12 V: ~45 rpm no-load (hardware-facts §B3) ≈ 4.7 rad/s, every SO-101 joint. */
const SO101_MAX_SPEED = 4.7;
/**
 * The cbf filter's speed bound for the SO-101's arm joints (rad/s), below the servo's no-load
 * 4.7 rad/s: a filtered chunk catching up with its nominal at 4.7–4.8 rad/s left the simulated
 * position servo 0.07 rad behind its target, loading shoulder_lift to 2.2–2.4 N·m — over
 * joint_torque's 1.47 N·m (the self_collision fold's return, bench/RESULTS.md). 2.5 rad/s is
 * above every clean-policy joint speed (≤ 1.72 rad/s) and kept that episode under the limit. The
 * jaw keeps the servo's 4.7 rad/s (the gripper closes at up to 4.4 rad/s).
 */
const SO101_FILTER_ARM_SPEED = 2.5;

/**
 * The cbf mode's settings per scene: d_safe; the self-collision clearance (as far as obstacles:
 * the Panda scene's palm box is wider than the hand's published volumes, and 5 mm + δ let
 * MuJoCo's palm touch link5 in the wrist fold); the planning margin δ; the held object's tilt; the
 * table plane (the Panda's description puts a 5 cm capsule around the Franka Hand's fingers, so
 * its grasp of a 4 cm-high block sits inside any table barrier: the Panda scene keeps the
 * bystanders only); tracking as a mocap system delivers it (one tick late, 1 mm noise, stale
 * after 0.1 s); joint speed bounds (gripper last).
 */
export function demoCbfSettings(sceneId: SceneId): Omit<SimCbfOptions, 'wallMs'> {
  const tracking = { trackingMaxAge: 0.1, trackingLatencyTicks: 1, trackingNoise: 0.001 };
  const common = {
    ...tracking,
    planningMargin: DEMO_PLANNING_MARGIN,
    heldTilt: {
      objectLimit: DEMO_HELD_TILT_LIMIT,
      pivotGain: DEMO_PIVOT_GAIN,
      faces: 4,
      margin: TILT_PLANNING_MARGIN,
    },
  };
  return sceneId === 'so101'
    ? {
        dSafe: 0.01,
        selfClearance: 0.01,
        tablePlane: true,
        ...common,
        maxSpeed: [...new Array<number>(5).fill(SO101_FILTER_ARM_SPEED), SO101_MAX_SPEED],
        heldJointScale: null,
      }
    : {
        dSafe: 0.02,
        selfClearance: 0.02,
        tablePlane: false,
        ...common,
        maxSpeed: [...FRANKA_DQ_MAX.panda, 0.2],
        heldJointScale: PANDA_HELD_JOINT_SCALE,
      };
}

/**
 * Planning margin δ of the demo's CBF (m): chunks are planned d_safe + δ clear, the gate refuses
 * only inside d_safe. Without it a chunk that ended on the boundary (h ≈ 0) started the next one
 * 0.2–1.4 mm inside (servo tracking error, 1 mm tracker noise) and held (bench/RESULTS.md).
 */
export const DEMO_PLANNING_MARGIN = 0.003;
/** held_object_tilt_world's main tier less its warning band: 15° − 1.5° (spec/clauses.yaml). */
export const DEMO_HELD_TILT_LIMIT = (13.5 * Math.PI) / 180;
/** The held target tilts about twice as far as the tool in the simulated fingers (measured, bench/RESULTS.md). */
export const DEMO_PIVOT_GAIN = 2;
/**
 * While the Panda holds an object its filter weights joints 1–4 (shoulder to elbow) 3× in distance
 * (9× in cost) against the wrist's (SimCbfOptions.heldJointScale): their axes are 0.46–0.54 m from
 * the TCP at the home pose, the wrist pitch's 0.23 m. Measured on tilt_held, seeds 1–10
 * (bench/RESULTS.md): unweighted, the tilt correction dropped the target into the box wall in 4/10
 * (1 unsafe); with the levers' own ratio (2.3–2.7) still in 1/10; with 3 in none. The SO-101 needs
 * none (its tilt_held completes 10/10 unweighted).
 */
export const PANDA_HELD_JOINT_SCALE: readonly number[] = [3, 3, 3, 3, 1, 1, 1];
export const DEMO_DEFAULT_EPISODES = 3;
/** Bootstrap resamples for the demo's report (the report command's default is 10 000). */
const DEMO_RESAMPLES = 2000;

export const demoCommand: Command = {
  name: 'demo',
  help: `usage: armguard demo [--scenario NAME] [--modes off,hold,cbf] [--episodes N] [--out DIR] [--seed S] [--policies a,b,...] [--scene so101|panda] [--json]

A pilot without an arm. Each scripted policy (a clean pick-and-place and one unsafe variant per
clause family) runs in the MuJoCo testbed for N episodes (default ${DEMO_DEFAULT_EPISODES}, seeds S, S+1, …) in each
gate mode, on the same seeds:
  off    baseline: the online monitors and the gate only record (a hold is recorded as a
         would-hold; the arm goes on);
  hold   the monitors feed the gate every 30 Hz tick; a violation or a missing/stale signal holds
         the arm at once and every later chunk is held (stopping, not preventing);
  cbf    as hold, and every chunk first goes through the chunk-level CBF (the hardware chunk path):
         the arm's capsules (from the same robot description the simulated arm is generated from)
         are kept d_safe clear of the tracked bystanders (and, on the SO-101, the table), so a chunk
         that would hit one is bent around it and the task goes on; a chunk it cannot make safe,
         or a stale tracker, holds.
Every episode is recorded to DIR/episodes/<run>/<id>.mcap (frames, ρ per clause, proposed/executed
chunks, gate transitions) and labelled success/failure by the task predicate (target in the box),
with policy '<policy>/gate-<mode>'. Prints one progress line per episode, one headline column per
mode (Safety, successes, unsafe successes, holds, chunk modification, smoothness, filter time),
then writes the safety report (grouped by policy and mode) to DIR/report.

options:
  --scenario NAME    ${Object.entries(DEMO_SCENARIOS)
    .map(([k, v]) => `${k}: ${v.summary}`)
    .join('; ')} (default: 'default';
                     the hazard-twins options are listed below)
  --modes a,b        gate modes, in order (default ${PILOT_MODES.join(',')})
  --json             print only the figures as JSON: {"modes": {mode: {...}}, "policies": {policy: {mode: {...}}}}
  --episodes N       episodes per policy and mode (default ${DEMO_DEFAULT_EPISODES})
  --out DIR          output directory (default ./demo-out; must not already hold these episode ids)
  --seed S           first seed (default 1)
  --policies a,b     subset of the policies
  --scene ID         so101 (default) or panda

policies: ${POLICIES.map((p) => p.name).join(', ')}

examples:
  armguard demo
  armguard demo --episodes 1 --policies clean,shove_bystander --out /tmp/pilot
  armguard demo --modes off,cbf --scene panda --episodes 10 --json

${Object.values(DEMO_SCENARIOS)
  .flatMap((x) => (x.help ? [x.help] : []))
  .join('\n\n')}`,
  async run(args, io) {
    const scenario = pickScenario(args);
    if (!scenario.ok) {
      io.err(`armguard demo: ${scenario.error}`);
      return EXIT.usage;
    }
    if (scenario.scenario.run) {
      return scenario.scenario.run(args, io);
    }
    const parsed = parseArgs(args, {
      strings: ['episodes', 'scene', 'seed', 'policies', 'out', 'scenario', 'modes'],
      booleans: ['json'],
    });
    if (!parsed.ok) {
      io.err(`armguard demo: ${parsed.error}`);
      return EXIT.usage;
    }
    if (parsed.positionals.length > 0) {
      io.err(`armguard demo: unexpected argument '${parsed.positionals[0]}'`);
      return EXIT.usage;
    }
    const opt = (k: string): string | undefined => {
      const v = parsed.options.get(k);
      return typeof v === 'string' ? v : undefined;
    };
    const modes = parseModes(opt('modes'), PILOT_MODES);
    if (!modes.ok) {
      io.err(`armguard demo: ${modes.error}`);
      return EXIT.usage;
    }
    const json = parsed.options.get('json') === true;
    const episodes = Number(opt('episodes') ?? String(DEMO_DEFAULT_EPISODES));
    if (!Number.isInteger(episodes) || episodes < 1 || episodes > 1000) {
      io.err(`armguard demo: --episodes must be an integer 1…1000, got '${opt('episodes')}'`);
      return EXIT.usage;
    }
    const seed = Number(opt('seed') ?? '1');
    if (!Number.isInteger(seed) || seed < 0) {
      io.err(`armguard demo: --seed must be a non-negative integer, got '${opt('seed')}'`);
      return EXIT.usage;
    }
    const sceneId = opt('scene') ?? 'so101';
    if (!(sceneId in SCENES)) {
      io.err(`armguard demo: --scene must be one of ${Object.keys(SCENES).join(', ')}, got '${sceneId}'`);
      return EXIT.usage;
    }
    let policies: PolicyDefinition[] = [...POLICIES];
    const wanted = opt('policies');
    if (wanted !== undefined) {
      policies = [];
      for (const name of wanted
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const p = policyByName(name);
        if (!p) {
          io.err(`armguard demo: unknown policy '${name}' (known: ${POLICIES.map((x) => x.name).join(', ')})`);
          return EXIT.usage;
        }
        policies.push(p);
      }
      if (policies.length === 0) {
        io.err('armguard demo: --policies names no policy');
        return EXIT.usage;
      }
    }
    const outDir = resolve(opt('out') ?? 'demo-out');
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) {
      for (const p of spec.problems) io.err(p);
      return EXIT.failure;
    }
    const clauses = demoClauses(spec.spec, demoPlatform(sceneId));
    if (!clauses.ok) {
      io.err(`armguard demo: cannot plan the clauses for the simulator: ${clauses.reason}`);
      return EXIT.failure;
    }
    // --json: stdout carries the JSON document only; errors still go to stderr.
    const log: CliIo = json ? { out: () => undefined, err: (t) => io.err(t) } : io;
    const pilot = await runPilot(log, {
      sceneId: sceneId as SceneId,
      modes: modes.modes as GateMode[],
      policies,
      episodes,
      seed,
      outDir,
      clauses: clauses.instances,
    });
    if (pilot === null) return EXIT.failure;
    const reported = await writeDemoReport(log, pilot.dir, join(outDir, 'report'), pilot.results);
    if (json)
      io.out(
        JSON.stringify(
          demoJson(
            pilot.results.map((r) => r.metrics),
            modes.modes,
          ),
          null,
          2,
        ),
      );
    return reported ? EXIT.ok : EXIT.failure;
  },
};

interface PilotOptions {
  readonly sceneId: SceneId;
  readonly modes: readonly GateMode[];
  readonly policies: readonly PolicyDefinition[];
  readonly episodes: number;
  readonly seed: number;
  readonly outDir: string;
  readonly clauses: Parameters<typeof runDemoEpisode>[0]['clauses'];
}

async function runPilot(io: CliIo, o: PilotOptions): Promise<{ dir: string; results: DemoEpisodeResult[] } | null> {
  const scene = SCENES[o.sceneId]();
  const mj = await loadMujoco();
  const world = new SimWorld(mj, scene);
  const ik = new DlsIk(mj, world);
  const prevention = new DemoPrevention(mj, world, o.clauses);
  const stamp = new Date().toISOString();
  const runId = stamp.replace(/[^0-9]/g, '').slice(0, 14);
  // One folder per run, so that a second run into the same --out is not mixed into this report.
  const dir = join(o.outDir, 'episodes', runId);
  const total = o.policies.length * o.episodes * o.modes.length;
  io.out(
    `armguard demo — MuJoCo testbed, scene ${scene.id}, task ${DEMO_TASK}, ${o.policies.length} policies × ${o.episodes} episode(s), gate modes ${o.modes.join(', ')}`,
  );
  io.out(`monitored safe-tier clauses: ${o.clauses.map((c) => c.clause.id).join(', ')}`);
  io.out(`recording to ${dir}`);
  const started = Date.now();
  const results: DemoEpisodeResult[] = [];
  try {
    const cbf = o.modes.includes('cbf')
      ? new SimCbfPath(world, { ...demoCbfSettings(o.sceneId), wallMs: () => performance.now() })
      : undefined;
    for (const mode of o.modes) {
      for (const policy of o.policies) {
        for (let e = 0; e < o.episodes; e++) {
          const r = await runDemoEpisode({
            world,
            ik,
            policy,
            mode,
            seed: o.seed + e,
            clauses: o.clauses,
            task: DEMO_TASK,
            dir,
            episodeId: `gate-${mode}-${policy.name}-s${o.seed + e}`,
            startedAt: new Date().toISOString(),
            ...(cbf ? { cbf } : {}),
            prevention,
          });
          results.push(r);
          io.out(progressLine(r, results.length, total));
        }
      }
    }
  } catch (e) {
    io.err(`armguard demo: ${(e as Error).message}`);
    return null;
  } finally {
    prevention.dispose();
    ik.dispose();
    world.dispose();
  }
  io.out(`${total} episodes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const line of summaryTable(results)) io.out(line);
  io.out('');
  io.out('per gate mode, side by side (Safety = episodes with no safe-tier clause violated):');
  for (const line of modeHeadlines(
    demoJson(
      results.map((r) => r.metrics),
      o.modes,
    ),
  ))
    io.out(line);
  return { dir, results };
}

async function writeDemoReport(
  io: CliIo,
  episodesDir: string,
  reportDir: string,
  results: readonly DemoEpisodeResult[],
): Promise<boolean> {
  const holds = results.filter((r) => r.held);
  if (holds.length > 0) {
    io.out('why the gate held:');
    for (const r of holds) io.out(`  ${r.episodeId}: t=${r.holdT.toFixed(2)} s, ${r.holdReason}`);
  }
  io.out(`writing the report to ${reportDir} …`);
  const started = Date.now();
  const code = await reportCommand.run(
    [
      episodesDir,
      '--out',
      reportDir,
      '--group-by',
      'policy',
      '--resamples',
      String(DEMO_RESAMPLES),
      '--title',
      'armguard demo: MuJoCo pilot, per gate mode',
    ],
    io,
  );
  io.out(
    `report ${code === EXIT.ok ? 'written' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${join(reportDir, 'report.html')}`,
  );
  return code === EXIT.ok;
}
