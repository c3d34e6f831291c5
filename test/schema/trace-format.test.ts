import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTraceCsv, parseTraceJsonl, parseTraceText } from '../../src/schema/trace-format.js';

const header = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'armguard-trace/1',
    episode: 'ep-1',
    success: true,
    platform: 'sim',
    templates: ['pnp-basic'],
    manual: { stable_grasp_maintained: 'violated' },
    columns: ['t', 'contact_force_max', 'gripper_contact'],
    ...extra,
  });

describe('trace formats', () => {
  it('reads JSONL: header, samples, null holds the previous value, booleans as 0/1', () => {
    const r = parseTraceJsonl(
      [header(), '[0, 10, 0]', '[0.05, null, true]', '', '[0.1, 250.5, null]'].join('\n'),
      'a.jsonl',
    );
    if (!r.ok) throw new Error(r.error[0]!.message);
    const t = r.value;
    expect(Array.from(t.times)).toEqual([0, 0.05, 0.1]);
    expect(Array.from(t.columns.get('contact_force_max')!)).toEqual([10, 10, 250.5]);
    expect(Array.from(t.columns.get('gripper_contact')!)).toEqual([0, 1, 1]);
    expect(t.meta).toMatchObject({ episodeId: 'ep-1', success: true, platform: 'sim', templates: ['pnp-basic'] });
    expect(t.meta.manual.get('stable_grasp_maintained')).toBe('violated');
  });

  it('reads the CSV form with the metadata comment line', () => {
    const meta = JSON.stringify({ episode: 'ep-2', success: false });
    const r = parseTraceText(`# armguard-trace/1 ${meta}\nt,max_joint_torque\n0,1\n0.5,\n1.0,3\n`, 'b.csv');
    if (!r.ok) throw new Error(r.error[0]!.message);
    expect(Array.from(r.value.columns.get('max_joint_torque')!)).toEqual([1, 1, 3]);
    expect(r.value.meta.success).toBe(false);
    expect(parseTraceCsv('t,x\n0,1', 'c.csv')).toMatchObject({ ok: false });
  });

  it.each([
    ['a non-increasing time', ['[0, 1, 0]', '[0, 2, 0]'], 3, 't', /increase strictly/],
    ['a non-finite value', ['[0, 1, 0]', '[0.1, "NaN", 0]'], 3, 'contact_force_max', /finite number/],
    ['a boolean out of range', ['[0, 1, 2]'], 2, 'gripper_contact', /boolean signal/],
    ['a short row', ['[0, 1]'], 2, '(sample)', /expected 3 values/],
    ['null on the first sample', ['[0, null, 0]'], 2, 'contact_force_max', /first sample/],
    ['broken JSON', ['[0, 1, 0'], 2, '(sample)', /invalid JSON/],
  ])('refuses %s with file, line and field', (_what, rows, line, field, reason) => {
    const r = parseTraceJsonl([header(), ...rows].join('\n'), 'bad.jsonl');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error[0]!.where).toMatchObject({ file: 'bad.jsonl', line, field });
    expect(r.error[0]!.message).toMatch(reason);
  });

  it('refuses bad headers naming the field', () => {
    const bad = (h: Record<string, unknown>) => {
      const r = parseTraceJsonl(header(h), 'h.jsonl');
      return r.ok ? [] : r.error.map((e) => `${e.where.field}@${e.where.line}: ${e.reason}`);
    };
    expect(bad({ success: 'yes' })[0]).toMatch(/^success@1: expected true or false/);
    expect(bad({ columns: ['t', 'contact_force'] })[0]).toMatch(
      /^columns\[1\]@1: 'contact_force' is not a schema signal \(did you mean 'contact_force_max'\?\)/,
    );
    expect(bad({ columns: ['t', 'in_transport'] })[0]).toMatch(/derived/);
    expect(bad({ columns: ['time', 'contact_force_max'] })[0]).toMatch(/^columns\[0\]/);
    expect(bad({ manual: { stable_grasp_maintained: 'yes' } })[0]).toMatch(/^manual.stable_grasp_maintained@1/);
    expect(bad({ sucess: true })[0]).toMatch(/did you mean 'success'/);
  });

  it('never throws on arbitrary input (fuzz)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const a = parseTraceJsonl(s, 'f.jsonl');
        const b = parseTraceCsv(s, 'f.csv');
        expect(typeof a.ok).toBe('boolean');
        expect(typeof b.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.oneof(fc.double(), fc.constant(null), fc.boolean(), fc.string()), { maxLength: 4 }), {
          maxLength: 10,
        }),
        (rows) => {
          const r = parseTraceJsonl([header(), ...rows.map((x) => JSON.stringify(x))].join('\n'), 'f.jsonl');
          if (!r.ok) expect(r.error[0]!.where.file).toBe('f.jsonl');
        },
      ),
      { numRuns: 300 },
    );
  });
});
