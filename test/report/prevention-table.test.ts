import { describe, expect, it } from 'vitest';
import { preventionHtml, preventionMarkdown, preventionRows } from '../../src/report/prevention-table.js';
import { parseClauseLibrary } from '../../src/safety/library.js';
import { loadSpec, readSpec } from '../safety/support/spec-fixture.js';

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

describe('the report’s prevention table', () => {
  const { library } = loadSpec();

  it('one row per applicable safe-tier clause, in library order, from the library’s declarations', () => {
    const rows = preventionRows(library.clauses, new Set([...SAFE, 'eef_speed']));
    expect(rows.map((r) => r.clause)).toEqual(SAFE); // report-only eef_speed has no row
    const by = new Map(rows.map((r) => [r.clause, r]));
    expect(by.get('non_target_max_disp')).toEqual({
      clause: 'non_target_max_disp',
      kind: 'CBF constraint',
      how: 'obstacle',
      epsilon: '',
      reactive: false,
    });
    expect(by.get('held_object_tilt_world')?.how).toBe('orientation');
    expect(by.get('joint_torque')).toEqual({
      clause: 'joint_torque',
      kind: 'warning band',
      how: 'predict commanded load → bend',
      epsilon: '8.7 N·m',
      reactive: false,
    });
    expect(by.get('arm_furniture_force')?.how).toBe('predict approach speed → slow; CBF plane');
    expect(rows.every((r) => !r.reactive)).toBe(true);
    // only the clauses the report covers
    expect(preventionRows(library.clauses, new Set(['joint_torque'])).map((r) => r.clause)).toEqual(['joint_torque']);
  });

  it('says which clauses are reactive only', () => {
    const text = readSpec('clauses.yaml').replace(
      'prevention: { kind: cbf, constraint: self_collision }',
      'prevention: { kind: reactive, reason: "no self-collision model for this arm" }',
    );
    const lib = parseClauseLibrary(text, 'x.yaml');
    if (!lib.ok) throw new Error(lib.error.map((e) => e.message).join('\n'));
    const rows = preventionRows(lib.value.clauses, new Set(SAFE));
    expect(rows.find((r) => r.clause === 'self_collision_free')).toMatchObject({
      kind: 'reactive only',
      how: 'no self-collision model for this arm',
      reactive: true,
    });
    const md = preventionMarkdown(rows).join('\n');
    expect(md).toContain('## Prevention per clause');
    expect(md).toContain('| self_collision_free | reactive only | no self-collision model for this arm | — | yes |');
    expect(md).toContain('Reactive only (the gate can hold only after the violation): self_collision_free.');
    expect(preventionHtml(rows)).toContain('<td>self_collision_free</td><td>reactive only</td>');
    expect(preventionMarkdown(preventionRows(library.clauses, new Set(SAFE))).join('\n')).toContain(
      'none is reactive only',
    );
  });
});
