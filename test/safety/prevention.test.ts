import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseClauseLibrary } from '../../src/safety/library.js';
import { captureIo } from '../support/cli-io.js';
import { loadSpec, readSpec } from './support/spec-fixture.js';

describe('prevention declared per safe-tier clause (spec/clauses.yaml, issue 15)', () => {
  const { library } = loadSpec();
  const byId = (id: string) => library.clauses.find((c) => c.id === id)!;

  it('every safe-tier clause declares one; geometric ones are CBF constraints, force/torque/grasp ones warning bands', () => {
    for (const c of library.clauses.filter((x) => x.tier === 'safe')) expect(c.prevention, c.id).toBeDefined();
    for (const c of library.clauses.filter((x) => x.tier === 'report')) expect(c.prevention, c.id).toBeUndefined();
    expect(byId('non_target_max_disp').prevention).toEqual({ kind: 'cbf', constraint: 'obstacle' });
    expect(byId('held_object_tilt_world').prevention).toEqual({ kind: 'cbf', constraint: 'orientation' });
    expect(byId('self_collision_free').prevention).toEqual({ kind: 'cbf', constraint: 'self_collision' });
    expect(byId('arm_furniture_force').prevention).toEqual({
      kind: 'warning_band',
      predictor: 'approach_speed',
      action: 'slow',
      cbf: 'plane',
    });
    expect(byId('joint_torque').prevention).toMatchObject({ kind: 'warning_band', predictor: 'commanded_load' });
    expect(byId('stable_grasp_maintained').prevention).toMatchObject({
      kind: 'warning_band',
      predictor: 'held_height',
    });
  });
});

describe('prevention validation', () => {
  const good = readSpec('clauses.yaml');
  const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const errorAt = (text: string, field: string) => {
    const r = parseClauseLibrary(text, 'bad.yaml');
    if (r.ok) throw new Error(`expected ${field} to be refused`);
    const e = r.error.find((x) => x.where.field === field);
    if (!e) throw new Error(`no error for ${field}; got:\n${r.error.map((x) => x.message).join('\n')}`);
    return e;
  };

  it('an unknown kind, predictor or constraint is refused at its line with the choices', () => {
    let bad = good.replace(
      'prevention: { kind: cbf, constraint: obstacle }',
      'prevention: { kind: barrier, constraint: obstacle }',
    );
    let e = errorAt(bad, 'clauses.non_target_max_disp.prevention.kind');
    expect(e.where).toMatchObject({ file: 'bad.yaml', line: lineOf(bad, 'kind: barrier') });
    expect(e.message).toMatch(/expected one of cbf, warning_band, reactive, got 'barrier'/);
    bad = good.replace(
      'prevention: { kind: cbf, constraint: obstacle }',
      'prevention: { kind: cbf, constraint: obstacles }',
    );
    expect(errorAt(bad, 'clauses.non_target_max_disp.prevention.constraint').message).toMatch(
      /did you mean 'obstacle'/,
    );
    bad = good.replace('predictor: commanded_load', 'predictor: commanded_torque');
    e = errorAt(bad, 'clauses.joint_torque.prevention.predictor');
    expect(e.message).toMatch(/expected one of approach_speed, commanded_load, held_height/);
  });

  it('a safe-tier clause without prevention, a report clause with one, and keys of another kind are refused', () => {
    let bad = good.replace('    prevention: { kind: cbf, constraint: self_collision }\n', '');
    expect(errorAt(bad, 'clauses.self_collision_free.prevention').message).toMatch(/missing required key 'prevention'/);
    bad = good.replace(
      '    source: seeds/000 C.6 eef_speed_under_1mps\n',
      '    source: seeds/000 C.6 eef_speed_under_1mps\n    prevention: { kind: reactive, reason: x }\n',
    );
    expect(errorAt(bad, 'clauses.eef_speed.prevention').message).toMatch(/report-only clauses are never gated/);
    bad = good.replace(
      'prevention: { kind: cbf, constraint: obstacle }',
      'prevention: { kind: cbf, constraint: obstacle, predictor: approach_speed }',
    );
    expect(errorAt(bad, 'clauses.non_target_max_disp.prevention.predictor').message).toMatch(
      /does not apply to prevention kind 'cbf'/,
    );
    bad = good.replace('prevention: { kind: cbf, constraint: obstacle }', 'prevention: { kind: reactive }');
    expect(errorAt(bad, 'clauses.non_target_max_disp.prevention.reason').message).toMatch(
      /missing required key 'reason'/,
    );
  });

  it('a warning band needs ε (warn) on every tier, inside (0, |τ|), named by clause, tier and line', () => {
    // missing ε on the fragile tier of a warning-band clause
    let bad = good.replace('fragile_50N: { tau: 50, severe: 100, warn: 5 }', 'fragile_50N: { tau: 50, severe: 100 }');
    let e = errorAt(bad, 'clauses.target_furniture_force.thresholds.fragile_50N.warn');
    expect(e.where).toMatchObject({ file: 'bad.yaml', line: lineOf(bad, 'fragile_50N: { tau: 50, severe: 100 }') });
    expect(e.message).toMatch(/missing the warning band ε/);
    expect(e.message).toContain('bad.yaml:');
    // ε as wide as the threshold
    bad = good.replace('main: { tau: 87, severe: 174, warn: 8.7 }', 'main: { tau: 87, severe: 174, warn: 87 }');
    e = errorAt(bad, 'clauses.joint_torque.thresholds.main.warn');
    expect(e.message).toMatch(/ε = 87 out of range: expected 0 < ε < \|τ\| = 87/);
    // ε ≤ 0 is refused by the tier reader itself
    bad = good.replace('main: { tau: 87, severe: 174, warn: 8.7 }', 'main: { tau: 87, severe: 174, warn: -1 }');
    expect(errorAt(bad, 'clauses.joint_torque.thresholds.main.warn').message).toMatch(/expected a number > 0/);
    // a CBF clause needs no ε
    bad = good.replace('main: { tau: 0.005, severe: 0.010, warn: 0.0005 }', 'main: { tau: 0.005, severe: 0.010 }');
    expect(parseClauseLibrary(bad, 'ok.yaml').ok).toBe(true);
  });
});

describe('armguard check explains the prevention of each clause', () => {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-prevention-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists one line per safe-tier clause with its kind, predictor, action and ε', async () => {
    const c = captureIo();
    expect(await main(['check', 'spec/clauses.yaml'], c.io)).toBe(0);
    const text = c.out.join('\n');
    expect(text).toMatch(/non_target_max_disp +CBF constraint: obstacle/);
    expect(text).toMatch(/held_object_tilt_world +CBF constraint: orientation/);
    expect(text).toMatch(/joint_torque +warning band: predict commanded load from the chunk, bend inside ε = 8\.7 N·m/);
    expect(text).toMatch(
      /arm_furniture_force +warning band: predict approach speed from the chunk, slow inside ε = 20 N; CBF constraint: plane/,
    );
  });

  it('a bad prevention makes check fail naming file, line and field', async () => {
    const path = join(dir, 'clauses.yaml');
    const text = readSpec('clauses.yaml').replace('predictor: held_height', 'predictor: grip_height');
    writeFileSync(path, text);
    const c = captureIo();
    expect(await main(['check', path], c.io)).toBe(1);
    const line = text.split('\n').findIndex((l) => l.includes('grip_height')) + 1;
    expect(c.err.join('\n')).toContain(`${path}:${line}`);
    expect(c.err.join('\n')).toContain('clauses.stable_grasp_maintained.prevention.predictor');
  });
});
