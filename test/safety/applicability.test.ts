import { describe, expect, it } from 'vitest';
import { applicability, activeSafeClauses } from '../../src/safety/applicability.js';
import { parseTaskMap, resolveTaskTags } from '../../src/safety/tasks.js';
import { declaredSignals } from '../../src/schema/platform.js';
import { loadSpec, readSpec } from './support/spec-fixture.js';

const { library, tasks, platforms } = loadSpec();
const allSignals = declaredSignals(platforms.get('sim')!) as ReadonlySet<string>;

function decide(spec: { task?: string; templates?: string[]; objects?: string[] }, signals = allSignals) {
  const tags = resolveTaskTags(tasks, spec, library.tags);
  if (!tags.ok) throw new Error(tags.error);
  const rows = applicability(library, tags.value, signals);
  return new Map(rows.map((r) => [r.clause.id, r]));
}

/** Expect exactly `inactive` to be off (decided by `tag`) and every other clause in `scope` on. */
function expectInactive(
  rows: ReturnType<typeof decide>,
  inactive: string[],
  tag: string,
  kind: 'excluded' | 'missing-tag',
) {
  for (const id of inactive) {
    const r = rows.get(id)!;
    expect(r.active, `${id} should be inactive`).toBe(false);
    expect(r.decision, id).toMatchObject({ kind, tag });
    expect(r.explanation).toContain(tag);
  }
}

describe('applicability registry: every row of seeds/000 Table 27', () => {
  it('wine-rack insert: held_object_tilt_world off (task-defining tilt); grasp clauses stay on', () => {
    const rows = decide({ task: 'libero-goal-task-9-wine-rack' });
    expectInactive(rows, ['held_object_tilt_world'], 'task_defining_tilt', 'excluded');
    expect(rows.get('stable_grasp_maintained')!.active).toBe(true);
    expect(rows.get('non_target_max_disp')!.active).toBe(true);
  });

  it('articulated open/close: non_target_max_disp and arm_furniture_force off by their task-defining tags', () => {
    const rows = decide({ templates: ['articulated-manipulation'] });
    expectInactive(rows, ['non_target_max_disp'], 'articulated_goal_motion', 'excluded');
    expectInactive(rows, ['arm_furniture_force'], 'task_defining_arm_fixture_contact', 'excluded');
    expect(rows.get('max_contact_force')!.active).toBe(true);
    expect(rows.get('joint_torque')!.active).toBe(true);
    expect(rows.get('self_collision_free')!.active).toBe(true);
  });

  it('knob twist / button / switch: non_target_max_disp off (small-fixture goal motion)', () => {
    const rows = decide({ task: 'robocasa-turn-off-stove' });
    expectInactive(rows, ['non_target_max_disp'], 'small_fixture_goal_motion', 'excluded');
    expect(rows.get('arm_furniture_force')!.active).toBe(true);
  });

  it('empty-bowl PnP (pnp-basic + non_spillable): held_object_tilt_world off, grasp clauses on', () => {
    const rows = decide({ templates: ['pnp-basic'], objects: ['non_spillable'] });
    expectInactive(rows, ['held_object_tilt_world'], 'non_spillable', 'excluded');
    expect(rows.get('held_object_tilt_world')!.explanation).toContain('object tag');
    expect(rows.get('stable_grasp_maintained')!.active).toBe(true);
    expect(rows.get('target_furniture_force')!.active).toBe(true);
  });

  it('sealed-container PnP (pnp-into-container + non_spillable): held_object_tilt_world off', () => {
    const rows = decide({ templates: ['pnp-into-container'], objects: ['non_spillable'] });
    expectInactive(rows, ['held_object_tilt_world'], 'non_spillable', 'excluded');
    // without the object tag, tilt applies to a pick-and-place
    expect(decide({ templates: ['pnp-into-container'] }).get('held_object_tilt_world')!.active).toBe(true);
  });

  it('push (no lift): stable_grasp, tilt and gripper_close_during_lift off for want of held_target', () => {
    const rows = decide({ task: 'libero-goal-task-5-push-plate' });
    expectInactive(
      rows,
      ['stable_grasp_maintained', 'held_object_tilt_world', 'gripper_close_during_lift_1cm'],
      'held_target',
      'missing-tag',
    );
    // the pushed target still exists: its furniture contact and speed stay scored
    expect(rows.get('target_furniture_force')!.active).toBe(true);
    expect(rows.get('target_obj_speed')!.active).toBe(true);
  });

  it.each(['articulated-manipulation', 'knob-twist', 'navigate'])(
    'no-held-target template %s: all held-object specs off by no_held_target',
    (template) => {
      const rows = decide({ templates: [template] });
      expectInactive(
        rows,
        [
          'target_furniture_force',
          'stable_grasp_maintained',
          'held_object_tilt_world',
          'target_obj_speed',
          'gripper_close_during_lift_1cm',
        ],
        'no_held_target',
        'excluded',
      );
    },
  );

  it('a task combining templates unites their tags: an invalidating tag holds for the whole episode', () => {
    const pnp = decide({ templates: ['pnp-basic'] });
    expect(pnp.get('held_object_tilt_world')!.active).toBe(true);
    expect(pnp.get('non_target_max_disp')!.active).toBe(true);
    const combined = decide({ templates: ['pnp-basic', 'knob-twist'] });
    expect(combined.get('non_target_max_disp')!.decision).toMatchObject({
      kind: 'excluded',
      tag: 'small_fixture_goal_motion',
      origin: 'template knob-twist',
    });
    expect(combined.get('held_object_tilt_world')!.decision).toMatchObject({ kind: 'excluded', tag: 'no_held_target' });
    expect(combined.get('max_contact_force')!.active).toBe(true);
  });
});

describe('applicability registry: platform signal tags', () => {
  it('an undeclared signal gives "not applicable (reduced set)", never active', () => {
    const so101 = declaredSignals(platforms.get('so101')!) as ReadonlySet<string>;
    const rows = decide({ task: 'so101-pick-butter' }, so101);
    expect(rows.get('non_target_max_disp')!.decision).toMatchObject({
      kind: 'missing-signal',
      signal: 'non_target_disp_max',
    });
    expect(rows.get('non_target_max_disp')!.explanation).toMatch(/reduced applicable set/);
    expect(rows.get('target_furniture_force')!.decision).toMatchObject({ kind: 'missing-signal' });
    expect(rows.get('stable_grasp_maintained')!.active).toBe(true);
    // with external tracking enabled the clause comes back
    const tracked = declaredSignals(platforms.get('so101')!, ['non_target_disp_max']) as ReadonlySet<string>;
    expect(decide({ task: 'so101-pick-butter' }, tracked).get('non_target_max_disp')!.active).toBe(true);
  });

  it('the active safe set for a plain PnP on the simulator is all eight clauses', () => {
    const tags = resolveTaskTags(tasks, { templates: ['pnp-basic'] }, library.tags);
    if (!tags.ok) throw new Error(tags.error);
    expect(activeSafeClauses(applicability(library, tags.value, allSignals))).toHaveLength(8);
  });

  it('unknown templates, tasks and tags are errors naming them', () => {
    expect(resolveTaskTags(tasks, { templates: ['pnp-basik'] }, library.tags)).toMatchObject({
      ok: false,
      error: expect.stringContaining("did you mean 'pnp-basic'"),
    });
    expect(resolveTaskTags(tasks, { task: 'nope' }, library.tags)).toMatchObject({
      ok: false,
      error: expect.stringContaining("unknown task 'nope'"),
    });
    expect(resolveTaskTags(tasks, { objects: ['spillable'] }, library.tags)).toMatchObject({
      ok: false,
      error: expect.stringContaining("unknown tag 'spillable'"),
    });
  });

  it('the task map is validated against the library tag vocabulary, with lines', () => {
    const text = readSpec('tasks.yaml').replace(
      'objects: [non_spillable] }\n  so101-pick-butter',
      'objects: [non_spilable] }\n  so101-pick-butter',
    );
    const r = parseTaskMap(text, 'tasks.yaml', library.tags);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error[0]!.where).toMatchObject({
        file: 'tasks.yaml',
        field: 'tasks.so101-pick-strawberry-jello.objects',
      });
      expect(r.error[0]!.where.line).toBe(text.split('\n').findIndex((l) => l.includes('non_spilable')) + 1);
    }
  });
});
