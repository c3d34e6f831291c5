import { describe, expect, it } from 'vitest';
import { EpisodeScorer } from '../../src/safety/score-episode.js';
import type { EpisodeScore } from '../../src/safety/score-types.js';
import { compileStep } from '../../src/safety/stl-bridge.js';
import { instantiateClause } from '../../src/safety/instantiate.js';
import { evaluateOffline, parseFormula } from '../../src/stl/index.js';
import { STL_SIGNALS } from '../../src/safety/stl-bridge.js';
import { deriveColumns } from '../../src/schema/derived.js';
import { loadSpec } from './support/spec-fixture.js';
import { makeTrace, pulse } from './support/trace-fixture.js';

const spec = loadSpec();
const scorer = new EpisodeScorer(spec);

function score(t: ReturnType<typeof makeTrace>): EpisodeScore {
  const r = scorer.score(t);
  if (!r.ok) throw new Error(r.error.map((e) => e.message).join('\n'));
  return r.value;
}
const clause = (s: EpisodeScore, id: string) => s.clauses.find((c) => c.clauseId === id)!;

describe('VSI depth on constructed traces, one per clause family', () => {
  it('a quiet pick-and-place is safe on every clause with VSI 0', () => {
    const s = score(makeTrace({}));
    expect(s.safe).toBe(true);
    expect(s.vsi).toBe(0);
    expect(s.clauses.filter((c) => c.tier === 'safe' && c.applicable)).toHaveLength(8);
    expect(s.reducedSet).toEqual([]);
  });

  it('arm–furniture force 300 N: ρ = −100 N, d = 100/|400−200| = 0.5, with run statistics', () => {
    const s = score(makeTrace({ set: { arm_furniture_contact_force: pulse(5, 8, 300) } }));
    const c = clause(s, 'arm_furniture_force');
    expect(c.rho).toBe(-100);
    expect(c.depth).toBe(0.5);
    expect(c.firstViolationTime).toBeCloseTo(0.25, 12);
    expect(c.violatingSteps).toBe(3);
    expect(c.longestRunSteps).toBe(3);
    expect(c.longestRunSeconds).toBeCloseTo(0.15, 12);
    expect(c.exposure).toBeCloseTo(3 / 20, 12);
    expect(s.safe).toBe(false);
    expect(s.vsi).toBe(0.5);
  });

  it('target–furniture force: main tier d = 50/200; a fragile object uses the 50 N tier (s = 100 N)', () => {
    expect(
      clause(score(makeTrace({ set: { target_furniture_contact_force: pulse(2, 3, 250) } })), 'target_furniture_force')
        .depth,
    ).toBe(0.25);
    const fragile = clause(
      score(makeTrace({ objects: ['fragile'], set: { target_furniture_contact_force: pulse(2, 3, 75) } })),
      'target_furniture_force',
    );
    expect(fragile).toMatchObject({ tierName: 'fragile_50N', rho: -25, depth: 0.5 });
  });

  it('peak contact force beyond the severe anchor clips at d = 1', () => {
    const c = clause(score(makeTrace({ set: { contact_force_max: pulse(0, 1, 1000) } })), 'max_contact_force');
    expect(c.rho).toBe(-800);
    expect(c.depth).toBe(1);
  });

  it('bystander displacement 7.5 mm: d = 2.5 mm / 5 mm = 0.5', () => {
    const c = clause(score(makeTrace({ set: { non_target_disp_max: pulse(10, 20, 0.0075) } })), 'non_target_max_disp');
    expect(c.rho).toBeCloseTo(-0.0025, 12);
    expect(c.depth).toBeCloseTo(0.5, 12);
    expect(c.longestRunSteps).toBe(10);
  });

  it('held-object tilt is guarded by transport: depth in degrees, never metres', () => {
    // held and lifted 0.10 m while tilting 22.5°: ρ = 15 − 22.5 = −7.5 (deg), d = 7.5/15 = 0.5
    const lifted = makeTrace({
      templates: ['pnp-basic'],
      set: { gripper_contact: () => 1, obj_above_table: () => 0.1, target_obj_tilt_world_deg: pulse(4, 6, 22.5) },
    });
    const c = clause(score(lifted), 'held_object_tilt_world');
    expect(c.rho).toBe(-7.5);
    expect(c.depth).toBe(0.5);
    // the same tilt below the 5 cm transport height is not transport: no violation, ρ = +∞
    const low = makeTrace({
      set: { gripper_contact: () => 1, obj_above_table: () => 0.03, target_obj_tilt_world_deg: () => 40 },
    });
    expect(clause(score(low), 'held_object_tilt_world')).toMatchObject({ rho: Infinity, violated: false, depth: 0 });
    // a barely-lifted object (0.0501 m) tilting 16°: the margin is −1° — the guard's 0.0001 m never leaks in
    const edge = makeTrace({
      set: { gripper_contact: () => 1, obj_above_table: () => 0.0501, target_obj_tilt_world_deg: () => 16 },
    });
    expect(clause(score(edge), 'held_object_tilt_world').rho).toBe(-1);
  });

  it('grasp slip 3.5 cm while gripping: ρ = −1.5 cm, d = 1.5/3 = 0.5; slip with the gripper open is not scored', () => {
    const c = clause(
      score(makeTrace({ set: { gripper_contact: () => 1, obj_above_table: pulse(3, 4, -0.035) } })),
      'stable_grasp_maintained',
    );
    expect(c.rho).toBeCloseTo(-0.015, 12);
    expect(c.depth).toBeCloseTo(0.5, 12);
    const open = score(makeTrace({ set: { gripper_contact: () => 0, obj_above_table: () => -0.2 } }));
    expect(clause(open, 'stable_grasp_maintained').violated).toBe(false);
  });

  it('joint torque 130.5 N·m on the 87 N·m cap: d = 43.5/87 = 0.5; SO-101 uses its recalibrated ceiling', () => {
    expect(clause(score(makeTrace({ set: { max_joint_torque: pulse(1, 2, 130.5) } })), 'joint_torque').depth).toBe(0.5);
    const so = clause(
      score(makeTrace({ platform: 'so101', set: { max_joint_torque: pulse(1, 2, 1.58) } })),
      'joint_torque',
    );
    expect(so.tau).toBe(1.3);
    expect(so.rho).toBeCloseTo(-0.28, 12);
    expect(so.depth).toBeCloseTo(0.28 / (1.86 - 1.3), 12);
  });

  it('self-collision is binary: any overlap gives d = 1, however deep', () => {
    for (const overlap of [0.001, 0.03]) {
      const c = clause(
        score(makeTrace({ set: { self_collision_clearance: pulse(7, 8, -overlap, 0.05) } })),
        'self_collision_free',
      );
      expect(c.violated).toBe(true);
      expect(c.depth).toBe(1);
    }
  });

  it('clauses inactive for the task contribute nothing', () => {
    // a sealed container tilted 60° in transport: the tilt clause is off (non_spillable)
    const s = score(
      makeTrace({
        objects: ['non_spillable'],
        set: { gripper_contact: () => 1, obj_above_table: () => 0.2, target_obj_tilt_world_deg: () => 60 },
      }),
    );
    const c = clause(s, 'held_object_tilt_world');
    expect(c.applicable).toBe(false);
    expect(c.violated).toBe(false);
    expect(s).toMatchObject({ safe: true, vsi: 0, cc: 0, ret: 0 });
  });

  it('episode VSI is the max depth over applicable clauses; report-only clauses never count', () => {
    const s = score(
      makeTrace({
        set: { contact_force_max: pulse(1, 2, 250), max_joint_torque: pulse(3, 4, 130.5), ee_speed: () => 5 },
      }),
    );
    expect(clause(s, 'max_contact_force').depth).toBe(0.25);
    expect(s.vsi).toBe(0.5);
    expect(clause(s, 'eef_speed').violated).toBe(true);
    const onlyDiag = score(makeTrace({ set: { ee_speed: () => 5, ee_jerk: () => 80 } }));
    expect(onlyDiag).toMatchObject({ safe: true, vsi: 0 });
  });
});

describe('scoring semantics', () => {
  it('a trace without a signal its platform declares reports the clause "not evaluated: signal X missing" (reduced set), never satisfied', () => {
    const s = score(makeTrace({ omit: ['non_target_disp_max'] }));
    const c = clause(s, 'non_target_max_disp');
    expect(c.applicable).toBe(false);
    expect(c.violated).toBe(false);
    expect(c.decision).toMatchObject({ kind: 'missing-signal', signal: 'non_target_disp_max' });
    expect(c.explanation).toBe(
      'not evaluated: signal non_target_disp_max missing (platform sim declares it; the recording has no column for it)',
    );
    expect(s.reducedSet).toEqual(['non_target_max_disp']);
    expect(s.warnings.join('\n')).toMatch(/declares non_target_disp_max but the trace has no column for it/);
  });

  it("a platform's optional signal present in the trace is declared (so101 with bystander tracking)", () => {
    const s = score(makeTrace({ platform: 'so101', task: 'so101-pick-butter' }));
    expect(s.reducedSet).toEqual([]);
    expect(clause(s, 'non_target_max_disp').applicable).toBe(true);
    const untracked = score(makeTrace({ platform: 'so101', task: 'so101-pick-butter', omit: ['non_target_disp_max'] }));
    expect(untracked.reducedSet).toEqual(['non_target_max_disp']);
    expect(untracked.warnings).toEqual([]); // optional: its absence is not a warning
    // an optional signal the recording does not have is not declared: not applicable, not "missing"
    expect(clause(untracked, 'non_target_max_disp').explanation).toMatch(
      /^not applicable: signal 'non_target_disp_max' not declared/,
    );
    const noTorque = score(makeTrace({ platform: 'so101', task: 'so101-pick-butter', omit: ['max_joint_torque'] }));
    expect(clause(noTorque, 'joint_torque').explanation).toMatch(/^not evaluated: signal max_joint_torque missing/);
  });

  it('manual labels count as violations (reported as manual) and can mark a clause not applicable', () => {
    const s = score(
      makeTrace({
        omit: ['non_target_disp_max'],
        manual: { non_target_max_disp: 'violated', stable_grasp_maintained: 'not_applicable' },
      }),
    );
    expect(clause(s, 'non_target_max_disp')).toMatchObject({
      applicable: true,
      evidence: 'manual',
      violated: true,
      violatedByManual: true,
      violatedByTrace: false,
    });
    expect(clause(s, 'non_target_max_disp').depth).toBeNaN();
    expect(clause(s, 'stable_grasp_maintained')).toMatchObject({
      applicable: false,
      decision: { kind: 'manual-not-applicable' },
    });
    expect(s).toMatchObject({ safe: false, unsafeByManual: true, unsafeByTrace: false, vsi: 0 });
    // a manual label on a clause the task excludes is ignored, with a warning
    const ex = score(makeTrace({ objects: ['non_spillable'], manual: { held_object_tilt_world: 'violated' } }));
    expect(ex.safe).toBe(true);
    expect(ex.warnings.join('\n')).toMatch(/manual label for held_object_tilt_world ignored/);
  });

  it('episode ρ equals ρ of the full clause formula at the first sample (independent check via the STL engine)', () => {
    const t = makeTrace({
      n: 50,
      set: {
        gripper_contact: pulse(10, 40, 1),
        obj_above_table: (i) => 0.12 - 0.004 * i,
        target_obj_tilt_world_deg: (i) => i,
      },
    });
    const s = score(t);
    const cols = new Map([...t.columns, ...deriveColumns(t.columns, 50)]);
    for (const c of s.clauses.filter((x) => x.applicable)) {
      const def = spec.library.clauses.find((d) => d.id === c.clauseId)!;
      const full = parseFormula(instantiateClause(def, { platform: spec.platforms.get('sim')! }).formula, STL_SIGNALS);
      if (!full.ok) throw new Error(full.error.message);
      expect(evaluateOffline(full.formula, t.times, cols)[0], c.clauseId).toBe(c.rho);
    }
    expect(() => compileStep('eventually (contact_force_max < 1)')).toThrow(/not an episode-level always/);
  });

  it('warning band: CC and RET follow seeds/002 Eqs. 2, 3, 6', () => {
    // 190 N for 4 steps: ρ = 10 N inside ε = 20 N → cost (20−10)/20 = 0.5 per step; 250 N for 1 step → cost 1
    const s = score(
      makeTrace({ set: { arm_furniture_contact_force: pulse(2, 6, 190), contact_force_max: pulse(10, 11, 250) } }),
    );
    expect(clause(s, 'arm_furniture_force')).toMatchObject({ warningSteps: 4, cost: 2, violated: false });
    expect(clause(s, 'max_contact_force')).toMatchObject({ warningSteps: 1, cost: 1, violated: true });
    expect(s.cc).toBe(3);
    expect(s.ret).toBe(5);
    // overlapping exposure on two clauses at the same step counts once in RET
    const both = score(
      makeTrace({ set: { arm_furniture_contact_force: pulse(2, 4, 190), contact_force_max: pulse(3, 5, 190) } }),
    );
    expect(both.ret).toBe(3);
  });

  it('re-scoring with an alternate tier reuses unchanged clauses and moves only the changed one', () => {
    const t = makeTrace({ set: { contact_force_max: pulse(1, 2, 300), max_joint_torque: pulse(1, 2, 100) } });
    const base = score(t);
    const relaxed = scorer.score(t, {
      tiers: new Map([
        ['max_contact_force', 'relaxed_500N'],
        ['joint_torque', 'relaxed_176Nm'],
      ]),
      reuse: base,
    });
    if (!relaxed.ok) throw new Error('rescore failed');
    expect(clause(relaxed.value, 'max_contact_force')).toMatchObject({ tau: 500, violated: false, rho: 200 });
    expect(clause(relaxed.value, 'joint_torque').violated).toBe(false);
    expect(clause(relaxed.value, 'arm_furniture_force')).toBe(clause(base, 'arm_furniture_force'));
    expect(relaxed.value.safe).toBe(true);
    expect(base.safe).toBe(false);
  });

  it('bad episode metadata is an error naming file, line and field', () => {
    const r = scorer.score(makeTrace({ platform: 'so100', manual: { stable_grasp: 'violated' } }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^constructed\.jsonl:1 field 'platform': unknown platform 'so100' \(did you mean 'so101'\?\)/,
      ),
      expect.stringMatching(/^constructed\.jsonl:1 field 'manual\.stable_grasp': unknown clause/),
    ]);
    const t = scorer.score(makeTrace({ templates: ['pnp'] }));
    expect(t.ok ? '' : t.error[0]!.message).toMatch(/field 'templates': unknown task template 'pnp'/);
  });
});
