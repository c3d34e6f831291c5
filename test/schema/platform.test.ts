import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredSignals, parsePlatformProfiles } from '../../src/schema/platform.js';
import { repoRoot } from '../support/paths.js';

const text = readFileSync(resolve(repoRoot, 'spec/platforms.yaml'), 'utf8');
const lineOf = (t: string, needle: string) => t.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('platform profiles (spec/platforms.yaml)', () => {
  const r = parsePlatformProfiles(text, 'spec/platforms.yaml');
  if (!r.ok) throw new Error(r.error.map((e) => e.message).join('\n'));
  const profiles = r.value;

  it('declares so101, fr3, panda, sim and sim-so101', () => {
    expect([...profiles.keys()].sort()).toEqual(['fr3', 'panda', 'sim', 'sim-so101', 'so101']);
  });
  it('SO-101 declares no bystander tracking or wrist F/T unless the instance enables them', () => {
    const so101 = profiles.get('so101')!;
    expect(declaredSignals(so101).has('non_target_disp_max')).toBe(false);
    expect(declaredSignals(so101).has('target_furniture_contact_force')).toBe(false);
    expect(declaredSignals(so101, ['non_target_disp_max']).has('non_target_disp_max')).toBe(true);
    expect(declaredSignals(so101, ['not_optional_here']).size).toBe(declaredSignals(so101).size);
    expect(so101.thresholds.get('joint_torque')!.reason).toMatch(/stall/);
  });
  it('sim declares every schema signal', () => {
    expect(profiles.get('sim')!.signals).toHaveLength(15);
  });
  it('an unknown signal and a missing recalibration reason are refused with line and field', () => {
    let bad = text.replace(
      '      - self_collision_clearance      # robot description volumes + FK',
      '      - self_colision',
    );
    let res = parsePlatformProfiles(bad, 'p.yaml');
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.error[0]!.where).toMatchObject({ file: 'p.yaml', field: 'platforms.so101.signals' });
      expect(res.error[0]!.message).toMatch(/unknown signal 'self_colision'/);
    }
    bad = text.replace(/ {8}reason: >-\n(.*\n){4}/, '');
    res = parsePlatformProfiles(bad, 'p.yaml');
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.error[0]!.where).toMatchObject({
        field: 'platforms.so101.thresholds.joint_torque.reason',
        line: lineOf(bad, 'source: hardware-facts.md B3'),
      }); // the mapping that lacks the key
    }
  });
});

describe('platform recalibrations against the clause library', () => {
  it('must name a real clause and keep a VSI anchor', async () => {
    const { crossCheckPlatforms } = await import('../../src/safety/cross-check.js');
    const { loadSpec } = await import('../safety/support/spec-fixture.js');
    const { library } = loadSpec();
    const good = parsePlatformProfiles(text, 'p.yaml');
    if (!good.ok) throw new Error('fixture');
    expect(crossCheckPlatforms(library, good.value)).toEqual([]);
    const bad = parsePlatformProfiles(
      text
        .replace('      joint_torque:\n', '      joint_torq:\n')
        .replace('main: { tau: 1.3, severe: 1.86, warn: 0.13 }', 'main: { tau: 1.3 }'),
      'p.yaml',
    );
    if (!bad.ok) throw new Error('fixture');
    const errs = crossCheckPlatforms(library, bad.value);
    expect(errs[0]!.message).toMatch(
      /p\.yaml:\d+ field 'platforms\.so101\.thresholds\.joint_torq': unknown clause 'joint_torq'/,
    );
    const noSevere = parsePlatformProfiles(
      text.replace('main: { tau: 1.3, severe: 1.86, warn: 0.13 }', 'main: { tau: 1.3 }'),
      'p.yaml',
    );
    if (!noSevere.ok) throw new Error('fixture');
    expect(crossCheckPlatforms(library, noSevere.value)[0]!.where.field).toBe(
      'platforms.so101.thresholds.joint_torque.tiers.main.severe',
    );
  });
});
