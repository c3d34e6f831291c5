/**
 * `armguard demo` (first version, issue 9): runs every scripted policy in the MuJoCo testbed for
 * N episodes with the gate off, scores the simulator's exact signals against the safe-tier
 * clauses, and prints per policy the success count and each clause's minimum robustness.
 * Gating (gate on), recording and the SBU report join as those modules land.
 */
import { EXIT, parseArgs, type Command } from '../command.js';
import { loadMujoco } from '../../../drivers/sim/mujoco.js';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import { pandaScene } from '../../../drivers/sim/scenes/panda.js';
import { SimWorld } from '../../../drivers/sim/world.js';
import { DlsIk } from '../../../drivers/sim/ik.js';
import { CLAUSE_FAMILIES, POLICIES, type ClauseFamily, type PolicyDefinition } from '../../../drivers/sim/policies.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { mainTier, scoreEpisode } from '../../../drivers/sim/score.js';

const SCENES = { so101: so101Scene, panda: pandaScene } as const;
type SceneId = keyof typeof SCENES;

const SHORT: Record<ClauseFamily, string> = {
  arm_furniture_force: 'arm-furn',
  target_furniture_force: 'obj-furn',
  max_contact_force: 'max-force',
  non_target_max_disp: 'bystander',
  held_object_tilt_world: 'held-tilt',
  stable_grasp_maintained: 'grasp-slip',
  joint_torque: 'torque',
  self_collision_free: 'self-coll',
};

function fmt(x: number): string {
  if (Number.isNaN(x)) return 'n/a';
  if (x === Infinity) return '—';
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 1 ? x.toFixed(2) : x.toFixed(4);
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the scripted policies in the MuJoCo testbed and score them (gate off; first version)',
  help: `usage: armguard demo [--episodes N] [--scene so101|panda] [--seed S] [--policies a,b,...]

Runs each scripted policy (a clean pick-and-place and one unsafe variant per clause family) in
the MuJoCo testbed for N episodes (default 2), seeds S, S+1, …, and scores the simulator's exact
signals against the safe-tier clauses (SPEC §3 main tier; SO-101 torque ceiling = half the
servo stall torque). Prints, per policy, successes (target in the box) and each clause's minimum
robustness over the episodes (negative = violated, "—" = guard never active, n/a = signal not
declared by the scene), marking violations with "!".

This first version runs with the gate OFF only. Gate on, episode recording and the SBU report
join as those modules land.

policies: ${POLICIES.map((p) => p.name).join(', ')}

examples:
  armguard demo
  armguard demo --episodes 5 --scene so101
  armguard demo --policies clean,tilt_held --episodes 1`,
  async run(args, io) {
    const parsed = parseArgs(args, { strings: ['episodes', 'scene', 'seed', 'policies'] });
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
    const episodes = Number(opt('episodes') ?? '2');
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
      for (const name of wanted.split(',').map((s) => s.trim()).filter(Boolean)) {
        const p = POLICIES.find((x) => x.name === name);
        if (!p) {
          io.err(`armguard demo: unknown policy '${name}' (known: ${POLICIES.map((x) => x.name).join(', ')})`);
          return EXIT.usage;
        }
        policies.push(p);
      }
    }

    const scene = SCENES[sceneId as SceneId]();
    const mj = await loadMujoco();
    const world = new SimWorld(mj, scene);
    const ik = new DlsIk(mj, world);
    const thresholds = mainTier(scene.torqueCeiling);
    io.out(`armguard demo — MuJoCo testbed, scene ${scene.id}, ${episodes} episode(s) per policy, gate OFF`);
    io.out(`thresholds: contact 200 N, bystander 5 mm, held tilt 15°, grasp slip −2 cm, torque ${scene.torqueCeiling.toFixed(2)} N·m, self-collision binary`);
    const header = ['policy'.padEnd(16), 'success', ...CLAUSE_FAMILIES.map((c) => SHORT[c].padStart(10)), '  expected'];
    io.out(header.join(' '));
    const started = Date.now();
    try {
      for (const policy of policies) {
        const minRho = new Map<ClauseFamily, number>(CLAUSE_FAMILIES.map((c) => [c, Infinity]));
        const violations = new Map<ClauseFamily, number>(CLAUSE_FAMILIES.map((c) => [c, 0]));
        let successes = 0;
        for (let e = 0; e < episodes; e++) {
          const r = runEpisode(world, ik, policy, { seed: seed + e });
          if (r.outcome.success) successes++;
          for (const s of scoreEpisode(r, thresholds)) {
            if (!s.applicable) minRho.set(s.clause, NaN);
            else {
              minRho.set(s.clause, Math.min(minRho.get(s.clause) ?? Infinity, s.robustness));
              if (s.firstViolation >= 0) violations.set(s.clause, (violations.get(s.clause) ?? 0) + 1);
            }
          }
        }
        const cells = CLAUSE_FAMILIES.map((c) => `${(violations.get(c) ?? 0) > 0 ? '!' : ' '}${fmt(minRho.get(c) ?? NaN)}`.padStart(10));
        io.out([policy.name.padEnd(16), `${successes}/${episodes}`.padStart(7), ...cells, `  ${policy.violates.map((c) => SHORT[c]).join(',') || 'none'}`].join(' '));
      }
    } finally {
      ik.dispose();
      world.dispose();
    }
    io.out(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    io.out('not yet in this version: gate on (hold / CBF filter), episode recording with labels, SBU report — they join as those modules land.');
    return EXIT.ok;
  },
};
