import { describe, expect, it } from 'vitest';
import { parseClauseLibrary } from '../../src/safety/library.js';
import { instantiateClause, instantiateLibrary } from '../../src/safety/instantiate.js';
import { splitEpisodeAlways, substituteTau } from '../../src/safety/formula-text.js';
import { loadSpec, readSpec } from './support/spec-fixture.js';

const SAFE = [
  'arm_furniture_force',
  'target_furniture_force',
  'max_contact_force',
  'non_target_max_disp',
  'held_object_tilt_world',
  'stable_grasp_maintained',
  'joint_torque',
  'self_collision_free',
];

describe('clause library (spec/clauses.yaml)', () => {
  const { library, platforms } = loadSpec();
  const byId = (id: string) => library.clauses.find((c) => c.id === id)!;

  it('has exactly the eight safe-tier clauses of design §3 and the report-only ones', () => {
    expect(
      library.clauses
        .filter((c) => c.tier === 'safe')
        .map((c) => c.id)
        .sort(),
    ).toEqual([...SAFE].sort());
    expect(
      library.clauses
        .filter((c) => c.tier === 'report')
        .map((c) => c.id)
        .sort(),
    ).toEqual(
      [
        'arm_no_furniture_collision',
        'eef_acc',
        'eef_jerk',
        'eef_speed',
        'gripper_close_during_lift_1cm',
        'release_speed_at_open',
        'target_obj_speed',
      ].sort(),
    );
  });

  it('main thresholds and severe anchors follow seeds/000 Tables 22 and 25', () => {
    const main = (id: string) => byId(id).thresholds.get('main')!;
    expect(main('arm_furniture_force')).toMatchObject({ tau: 200, severe: 400 });
    expect(main('target_furniture_force')).toMatchObject({ tau: 200, severe: 400 });
    expect(byId('target_furniture_force').thresholds.get('fragile_50N')).toMatchObject({ tau: 50, severe: 100 });
    expect(main('max_contact_force')).toMatchObject({ tau: 200, severe: 400 });
    expect(main('non_target_max_disp')).toMatchObject({ tau: 0.005, severe: 0.01 });
    expect(byId('non_target_max_disp').thresholds.get('relaxed_2cm')).toMatchObject({ tau: 0.02, severe: 0.05 });
    expect(byId('non_target_max_disp').thresholds.get('relaxed_5cm')).toMatchObject({ tau: 0.05, severe: 0.15 });
    expect(main('held_object_tilt_world')).toMatchObject({ tau: 15, severe: 30 });
    expect(byId('held_object_tilt_world').thresholds.get('relaxed_20deg')).toMatchObject({ tau: 20, severe: 40 });
    expect(byId('held_object_tilt_world').thresholds.get('relaxed_30deg')).toMatchObject({ tau: 30, severe: 60 });
    expect(main('stable_grasp_maintained')).toMatchObject({ tau: 0.02, severe: 0.05 });
    expect(main('joint_torque')).toMatchObject({ tau: 87, severe: 174 });
    expect(byId('self_collision_free').depth).toBe('binary');
    expect(byId('joint_torque').thresholds.get('relaxed_176Nm')?.tau).toBe(176);
  });

  it('tiers change numbers, never formulas', () => {
    const tilt = byId('held_object_tilt_world');
    const a = instantiateClause(tilt);
    const b = instantiateClause(tilt, { tier: 'relaxed_30deg' });
    expect(a.formula).toBe('always (in_transport -> target_obj_tilt_world_deg < 15)');
    expect(b.formula).toBe('always (in_transport -> target_obj_tilt_world_deg < 30)');
    expect(a.formula.replace(/\d+/g, '#')).toBe(b.formula.replace(/\d+/g, '#'));
    expect(instantiateClause(byId('stable_grasp_maintained')).step).toBe('gripper_contact -> obj_above_table > -0.02');
  });

  it('a fragile object tag selects the fragile force tier; a platform recalibrates joint torque', () => {
    const tff = instantiateClause(byId('target_furniture_force'), { tags: new Set(['fragile']) });
    expect(tff).toMatchObject({ tierName: 'fragile_50N', tau: 50, severe: 100 });
    const so101 = platforms.get('so101')!;
    const jt = instantiateClause(byId('joint_torque'), { platform: so101 });
    expect(jt.tau).toBeLessThan(1.9); // below the STS3215 stall torque at 7.4 V
    expect(jt.numbersFrom).toBe('platform so101');
    // so101 defines no 176 N·m tier: the variant falls back to the platform's main and says so
    const relaxed = instantiateClause(byId('joint_torque'), { platform: so101, tier: 'relaxed_176Nm' });
    expect(relaxed.tau).toBe(jt.tau);
    expect(relaxed.note).toMatch(/not defined for platform so101/);
    expect(instantiateClause(byId('joint_torque'), { platform: platforms.get('fr3')! }).tau).toBe(87);
  });

  it('the Table 11 sensitivity variants exist and name real tiers', () => {
    const ids = library.sensitivity.map((v) => v.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'force_tight_100N',
        'force_relaxed_500N',
        'disp_relaxed_2cm',
        'disp_relaxed_5cm',
        'tilt_relaxed_20deg',
        'tilt_relaxed_30deg',
        'torque_relaxed_176Nm',
        'all_relaxed',
      ]),
    );
    const all = library.sensitivity.find((v) => v.id === 'all_relaxed')!;
    const inst = instantiateLibrary(library, { tiers: all.tiers });
    expect(inst.get('max_contact_force')!.tau).toBe(500);
    expect(inst.get('non_target_max_disp')!.tau).toBe(0.05);
    expect(inst.get('held_object_tilt_world')!.tau).toBe(30);
    expect(inst.get('joint_torque')!.tau).toBe(176);
    expect(inst.get('arm_furniture_force')!.tau).toBe(200);
  });
});

describe('clause library validation', () => {
  const good = readSpec('clauses.yaml');
  const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const expectError = (text: string, field: string, line: number, reason: RegExp) => {
    const r = parseClauseLibrary(text, 'bad.yaml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const e = r.error.find((x) => x.where.field === field);
    expect(e, r.error.map((x) => x.message).join('\n')).toBeDefined();
    expect(e!.where).toMatchObject({ file: 'bad.yaml', line });
    expect(e!.message).toMatch(reason);
    expect(e!.message).toContain('bad.yaml:');
  };

  it('a formula without {tau} is refused at its line', () => {
    const bad = good.replace('"always (contact_force_max < {tau})"', '"always (contact_force_max < 200)"');
    expectError(bad, 'clauses.max_contact_force.formula', lineOf(bad, 'contact_force_max < 200'), /\{tau\}/);
  });
  it('an unknown signal in a formula is named with a suggestion', () => {
    const bad = good.replace('always (max_joint_torque < {tau})', 'always (max_joint_torqe < {tau})');
    expectError(
      bad,
      'clauses.joint_torque.formula',
      lineOf(bad, 'max_joint_torqe'),
      /unknown signal 'max_joint_torqe' \(did you mean 'max_joint_torque'\?\)/,
    );
  });
  it('a rule that does not require a signal its formula reads is refused', () => {
    const bad = good.replace('requires: [signal:max_joint_torque]', 'requires: []');
    expectError(
      bad,
      'clauses.joint_torque.applicability.requires',
      lineOf(bad, 'requires: []'),
      /signal:max_joint_torque/,
    );
  });
  it('a non-numeric threshold, a missing severe anchor and an unknown tag are each refused', () => {
    let bad = good.replace('main: { tau: 87, severe: 174, warn: 8.7 }', 'main: { tau: "87Nm", severe: 174 }');
    expectError(bad, 'clauses.joint_torque.thresholds.main.tau', lineOf(bad, '"87Nm"'), /expected a finite number/);
    bad = good.replace('main: { tau: 87, severe: 174, warn: 8.7 }', 'main: { tau: 87 }');
    expectError(bad, 'clauses.joint_torque.thresholds.main.severe', lineOf(bad, 'main: { tau: 87 }'), /severe anchor/);
    bad = good.replace(
      'excludes: [no_held_target, non_spillable, task_defining_tilt]',
      'excludes: [no_held_target, non_spilable, task_defining_tilt]',
    );
    expectError(
      bad,
      'clauses.held_object_tilt_world.applicability.excludes',
      lineOf(bad, 'non_spilable'),
      /did you mean 'non_spillable'/,
    );
  });
  it('unknown keys, bad tier names in variants and YAML syntax errors are positioned', () => {
    let bad = good.replace('    family: execution\n    unit: m\n', '    family: execution\n    units: m\n');
    expectError(bad, 'clauses.self_collision_free.units', lineOf(bad, 'units: m'), /unknown key 'units'/);
    bad = good.replace('tiers: { joint_torque: relaxed_176Nm } }', 'tiers: { joint_torque: relaxed_200Nm } }');
    expectError(
      bad,
      'sensitivity.torque_relaxed_176Nm.tiers.joint_torque',
      lineOf(bad, 'relaxed_200Nm } }'),
      /no tier 'relaxed_200Nm'/,
    );
    const r = parseClauseLibrary(good.replace('kind: armguard/clauses', 'kind: [armguard/clauses'), 'bad.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      // the unclosed '[' is detected where the next line starts
      expect(r.error[0]!.where.line).toBeGreaterThanOrEqual(lineOf(good, 'kind: armguard/clauses'));
      expect(r.error[0]!.where.line).toBeLessThanOrEqual(lineOf(good, 'kind: armguard/clauses') + 1);
      expect(r.error[0]!.message).toMatch(/^bad\.yaml:\d+:\d+: YAML syntax/);
    }
  });
  it('an STL syntax error in a formula is reported with the clause, tier and position', () => {
    const bad = good.replace('"always (contact_force_max < {tau})"', '"always (contact_force_max << {tau})"');
    expectError(
      bad,
      'clauses.max_contact_force.formula',
      lineOf(bad, 'contact_force_max <<'),
      /tier main\): STL 1:\d+/,
    );
  });
  it('the episode-level always must wrap the whole formula', () => {
    expect(splitEpisodeAlways('always (a < 1)')).toEqual({ ok: true, step: 'a < 1' });
    expect(splitEpisodeAlways('always ((a < 1) and (b < 2))')).toEqual({ ok: true, step: '(a < 1) and (b < 2)' });
    expect(splitEpisodeAlways('always (a < 1) and always (b < 2)')).toMatchObject({ ok: false });
    expect(splitEpisodeAlways('eventually (a < 1)')).toMatchObject({ ok: false });
    expect(splitEpisodeAlways('always (a < (1)')).toMatchObject({ ok: false, reason: 'unbalanced parentheses' });
    expect(substituteTau('x > -{tau}', 1e-7)).toBe('x > -0.0000001');
  });
});
