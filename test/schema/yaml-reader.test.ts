import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { YamlReader } from '../../src/schema/yaml-reader.js';

const text = ['robot:', '  name: arm', '  joints: [1, 2.5, x]', '  extra: 3', 'limits:', '  - 1', ''].join('\n');

describe('YamlReader (the one YAML reader: by node and by path)', () => {
  it('by node: positions a problem at the value it found', () => {
    const y = new YamlReader('f.yaml', text);
    const root = y.map(y.root, 'root', ['robot', 'limits'])!;
    const r = y.map(root.get('robot')!.value, 'robot', ['name', 'joints'])!;
    expect(y.string(r.get('name')!.value, 'robot.name')).toBe('arm');
    expect(y.number(r.get('name')!.value, 'robot.name')).toBeUndefined();
    expect(y.seq(root.get('limits')!.value, 'limits')).toHaveLength(1);
    expect(y.errors.map((e) => e.message)).toEqual([
      "f.yaml:4 field 'robot.extra': unknown key 'extra'; expected one of name, joints",
      `f.yaml:2 field 'robot.name': expected a finite number, got string "arm"`,
    ]);
  });

  it('by path: missing and wrong values are named with the line of the nearest parent', () => {
    const y = new YamlReader('f.yaml', text);
    expect(y.ok).toBe(true);
    expect(y.stringAt(['robot', 'name'])).toBe('arm');
    expect(y.numbersAt(['robot', 'joints'], 3)).toEqual([1, 2.5, NaN]);
    expect(y.numberAt(['robot', 'speed'], { optional: 0.5 })).toBe(0.5);
    expect(y.numberAt(['robot', 'speed'])).toBeNaN();
    expect(y.lengthAt(['limits'])).toBe(1);
    y.noExtraKeysAt(['robot'], ['name', 'joints']);
    expect(y.ok).toBe(false);
    expect(y.errors.map((e) => e.message)).toEqual([
      `f.yaml:3 field 'robot.joints[2]': expected a number, got "x"`,
      "f.yaml:2 field 'robot.speed': missing (expected a number)", // robot's mapping starts on line 2
      "f.yaml:4 field 'robot.extra': unknown field (expected one of name, joints)",
    ]);
  });

  it('positions syntax errors by line and column, or by line only when asked', () => {
    expect(new YamlReader('s.yaml', 'a: [').errors[0]!.message).toMatch(/^s\.yaml:1:\d+: YAML syntax/);
    const lineOnly = new YamlReader('s.yaml', 'a: [', { syntaxColumns: false });
    expect(lineOnly.errors[0]!.message).toMatch(/^s\.yaml:1: YAML syntax/);
    expect(lineOnly.root).toBeUndefined();
    expect(new YamlReader('d.yaml', 'a: 1\na: 2\n').errors[0]!.message).toMatch(/^d\.yaml:2:\d+: YAML syntax/); // duplicate keys are refused
  });

  it('never throws on arbitrary text; every problem names the file', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (t) => {
        const y = new YamlReader('p.yaml', t);
        y.map(y.root, 'root');
        y.numberAt(['a', 0]);
        y.stringAt(['b']);
        y.keysAt([]);
        for (const e of y.errors) expect(e.message.startsWith('p.yaml')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
