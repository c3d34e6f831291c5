import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFormula, parseSpecFile, printFormula, type Formula, type Interval } from '../../src/stl/index.js';
import { boundedFormulaArb, episodeFormulaArb, SIGNALS } from './support/arbitraries.js';
import { bool, real } from './support/formula.js';

const SIG = [...real('force', 'height', 'tilt'), ...bool('grip')];

function error(text: string): { line: number; column: number; message: string } {
  const r = parseFormula(text, SIG);
  if (r.ok) throw new Error(`expected an error for ${text}, got ${printFormula(r.formula)}`);
  return r.error;
}

describe('parser', () => {
  it('parses the design §3 clause shapes', () => {
    const r = parseFormula('G (grip and height > 0.05 -> tilt < 15)', SIG);
    expect(r.ok && printFormula(r.formula)).toBe('always ((grip and (height > 0.05)) -> (tilt < 15))');
    const s = parseFormula('always (force < 200) and always[0:0.5] (grip -> height > -0.02)', SIG);
    expect(s.ok).toBe(true);
  });

  it('precedence: not/temporal bind tighter than until, then and, or, -> (right-associative)', () => {
    const r = parseFormula('not grip and force < 1 or tilt > 2 -> grip -> height < 3', SIG);
    expect(r.ok && printFormula(r.formula)).toBe(
      '(((not grip) and (force < 1)) or (tilt > 2)) -> (grip -> (height < 3))',
    );
    const u = parseFormula('always[0:1] grip until[0:2] force < 3 and grip', SIG);
    expect(u.ok && printFormula(u.formula)).toBe('((always[0:1] grip) until[0:2] (force < 3)) and grip');
  });

  it('linear expressions with constants and abs', () => {
    const r = parseFormula('abs(force - 2 * height) / 4 + 1 <= -3', SIG);
    expect(r.ok && printFormula(r.formula)).toBe('((abs((force - (height * 2))) * 0.25) + 1) <= (-3)');
  });

  it('unknown signal: positioned, with a suggestion', () => {
    expect(error('always (forse < 200)')).toEqual({
      line: 1,
      column: 9,
      message: expect.stringContaining("unknown signal 'forse' — did you mean 'force'?"),
    });
  });

  it('actionable errors with line:column', () => {
    expect(error('always (force < 200')).toMatchObject({
      line: 1,
      column: 20,
      message: expect.stringContaining("expected ')' to close '(' opened at 1:8"),
    });
    expect(error('grip + 1 > 0')).toMatchObject({
      column: 6,
      message: expect.stringContaining("'grip' is a boolean signal"),
    });
    expect(error('force')).toMatchObject({
      column: 6,
      message: expect.stringContaining('expected a comparison operator'),
    });
    expect(error('force * height < 1')).toMatchObject({ column: 7, message: expect.stringContaining('linear') });
    expect(error('always[0:1] (always force < 1)')).toMatchObject({
      column: 14,
      message: expect.stringContaining('whole episode'),
    });
    expect(error('grip until force < 1')).toMatchObject({
      column: 6,
      message: expect.stringContaining("'until' needs a time bound"),
    });
    expect(error('always[3:1] grip')).toMatchObject({
      column: 7,
      message: expect.stringContaining('lower bound 3 greater than upper bound 1'),
    });
    expect(error('always[-1:1] grip')).toMatchObject({ column: 8, message: expect.stringContaining('seconds >= 0') });
    expect(error('0 < force < 3')).toMatchObject({ column: 11, message: expect.stringContaining('cannot be chained') });
    expect(error('force < 200 && grip')).toMatchObject({ column: 13, message: expect.stringContaining("write 'and'") });
    expect(error('force < 200N')).toMatchObject({ column: 9, message: expect.stringContaining('units') });
    expect(error('force < 1 grip')).toMatchObject({
      column: 11,
      message: expect.stringContaining("missing 'and', 'or' or '->'"),
    });
    expect(error('\n\n  (force < 1) or')).toMatchObject({ line: 3, column: 17 });
  });

  it('deep nesting is a positioned error, not a stack overflow; 200 levels still parse', () => {
    const tooDeep = 'formula nested too deeply (more than 256 levels)';
    const parens = (n: number): string => `${'('.repeat(n)}force < 1${')'.repeat(n)}`;
    expect(error(parens(20000))).toEqual({ line: 1, column: 257, message: tooDeep });
    expect(error(`${'not '.repeat(20000)}grip`)).toEqual({ line: 1, column: 1025, message: tooDeep });
    expect(error(`${'always[0:1] '.repeat(20000)}grip`)).toEqual({ line: 1, column: 3073, message: tooDeep });
    expect(error(`${'-'.repeat(20000)}force < 1`)).toEqual({ line: 1, column: 257, message: tooDeep });
    expect(error(Array<string>(20000).fill('grip').join(' -> '))).toEqual({ line: 1, column: 2054, message: tooDeep });
    // left-associative chains nest the AST as deeply, and later passes recurse over it
    expect(error(Array<string>(20000).fill('grip').join(' and '))).toEqual({ line: 1, column: 2310, message: tooDeep });
    expect(error(Array<string>(20000).fill('grip').join(' until[0:1] '))).toEqual({
      line: 1,
      column: 4102,
      message: tooDeep,
    });
    const spec = parseSpecFile(`bool grip\nreal force\nalways ${parens(20000)}\n`);
    expect(spec).toEqual({ ok: false, errors: [{ line: 3, column: 263, message: tooDeep }] });

    for (const text of [
      parens(200),
      `${'not '.repeat(200)}grip`,
      `${'-'.repeat(200)}force < 1`,
      Array<string>(200).fill('grip').join(' and '),
    ]) {
      expect(parseFormula(text, SIG).ok).toBe(true);
    }
    expect(parseSpecFile(`bool grip\nreal force\nalways ${parens(200)}\n`).ok).toBe(true);
  });

  it('a formula used by name counts its own nesting', () => {
    let text = 'bool grip\nlet f0 := grip\n';
    for (let i = 1; i <= 3; i++) text += `let f${i} := ${'not '.repeat(100)}f${i - 1}\n`;
    const r = parseSpecFile(text);
    expect(!r.ok && r.errors[0]).toEqual({
      line: 5,
      column: 411,
      message: 'formula nested too deeply (more than 256 levels)',
    });
  });

  it('round-trip: parse(print(f)) == f for random ASTs', () => {
    fc.assert(
      fc.property(fc.oneof(boundedFormulaArb(3), episodeFormulaArb(2), boundedFormulaArb(1)), (f) => {
        const text = printFormula(f);
        const r = parseFormula(text, SIGNALS);
        if (!r.ok) throw new Error(`${text}: ${r.error.message}`);
        // the parser adds each bound's exact ns (from its decimal text) to the intervals
        expect(r.formula).toEqual(withIntervalNs(f));
      }),
      { numRuns: 500 },
    );
  });

  const checkOutcome = (text: string): void => {
    const r = parseFormula(text, SIGNALS);
    if (r.ok) {
      // whatever parsed prints and re-parses to the same AST
      const again = parseFormula(printFormula(r.formula), SIGNALS);
      expect(again.ok && again.formula).toEqual(r.formula);
    } else {
      const lines = text.split('\n');
      expect(r.error.line).toBeGreaterThanOrEqual(1);
      expect(r.error.line).toBeLessThanOrEqual(lines.length);
      expect(r.error.column).toBeGreaterThanOrEqual(1);
      expect(r.error.column).toBeLessThanOrEqual((lines[r.error.line - 1] ?? '').length + 1);
      expect(r.error.message.length).toBeGreaterThan(5);
    }
  };

  it('fuzz: token soup never crashes, always a positioned error or an AST', () => {
    const token = fc.constantFrom(
      'x',
      'y',
      'p',
      'q',
      'z',
      '1',
      '0.5',
      '-',
      '+',
      '*',
      '/',
      '<',
      '<=',
      '>',
      '>=',
      '==',
      '!=',
      '(',
      ')',
      '[',
      ']',
      ':',
      ',',
      'not',
      'and',
      'or',
      '->',
      'always',
      'eventually',
      'until',
      'since',
      'once',
      'historically',
      'G',
      'F',
      'abs',
      'true',
      ' ',
      '\n',
      '#c\n',
      '&',
      '1e400',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 25 }), (tokens) => checkOutcome(tokens.join(' '))),
      { numRuns: 2000 },
    );
  });

  it('fuzz: arbitrary unicode and mutated valid formulas', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), checkOutcome), { numRuns: 500 });
    fc.assert(
      fc.property(boundedFormulaArb(2), fc.nat(), fc.nat(), fc.string({ maxLength: 3 }), (f, at, len, insert) => {
        const text = printFormula(f);
        const k = at % (text.length + 1);
        checkOutcome(text.slice(0, k) + insert + text.slice(k + (len % 4)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('spec files', () => {
  const spec = `# safe-tier excerpt
real arm_furniture_contact_force, obj_above_table
real target_obj_tilt_world_deg
bool gripper_contact

let tr := gripper_contact and obj_above_table > 0.05   # transport gate
arm_furniture_force := always (arm_furniture_contact_force < 200)
held_object_tilt_world := always (tr ->
    target_obj_tilt_world_deg < 15)
always (gripper_contact -> obj_above_table > -0.02)
`;
  it('declarations, helpers, named and unnamed formulas, continuation lines', () => {
    const r = parseSpecFile(spec);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.spec.signals).toEqual([
      { name: 'arm_furniture_contact_force', type: 'real' },
      { name: 'obj_above_table', type: 'real' },
      { name: 'target_obj_tilt_world_deg', type: 'real' },
      { name: 'gripper_contact', type: 'boolean' },
    ]);
    expect(r.spec.formulas.map((f) => f.name)).toEqual(['arm_furniture_force', 'held_object_tilt_world', 'formula3']);
    expect(printFormula(r.spec.formulas[1]!.formula)).toBe(
      'always ((gripper_contact and (obj_above_table > 0.05)) -> (target_obj_tilt_world_deg < 15))',
    );
  });

  it('reports every bad statement with its file position', () => {
    const bad = `real force
bool grip, force
x := always (forse < 1)
y := always (force < 1)
y := grip
let z :=
    always[0:1] (always grip)
always := grip
`;
    const r = parseSpecFile(bad);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      { line: 2, column: 12, message: "signal 'force' is declared twice" },
      { line: 3, column: 14, message: expect.stringContaining("unknown signal 'forse' — did you mean 'force'?") },
      { line: 5, column: 1, message: "formula 'y' is defined twice" },
      { line: 7, column: 18, message: expect.stringContaining('whole episode') },
      { line: 8, column: 1, message: expect.stringContaining("'always' is a keyword") },
    ]);
  });

  it('an unnamed formula never takes an auto-name the user already gave a formula or signal', () => {
    const r = parseSpecFile('real a\nformula2 := always (a < 1)\nalways (a < 5)\n');
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.spec.formulas.map((f) => [f.name, printFormula(f.formula)])).toEqual([
      ['formula2', 'always (a < 1)'],
      ['formula3', 'always (a < 5)'],
    ]);
    const s = parseSpecFile(
      'real a, formula4\nlet formula5 := a < 9\nformula2 := always (a < 1)\nalways (a < 5)\nalways (a < 7)\nalways formula5\n',
    );
    if (!s.ok) throw new Error(JSON.stringify(s.errors));
    expect(s.spec.formulas.map((f) => [f.name, printFormula(f.formula)])).toEqual([
      ['formula2', 'always (a < 1)'],
      ['formula3', 'always (a < 5)'],
      ['formula6', 'always (a < 7)'],
      ['formula7', 'always (a < 9)'],
    ]);
  });

  it('a helper with an episode-level operator cannot be nested in a temporal operator', () => {
    const r = parseSpecFile('real a\nlet ga := always (a < 1)\nalways[0:2] ga\n');
    expect(!r.ok && r.errors[0]).toMatchObject({
      line: 3,
      column: 13,
      message: expect.stringContaining("named formula 'ga'"),
    });
  });

  it('fuzz: never crashes; errors point inside the text', () => {
    fc.assert(
      fc.property(fc.nat(), fc.string({ maxLength: 4 }), (at, insert) => {
        const k = at % (spec.length + 1);
        const text = spec.slice(0, k) + insert + spec.slice(k);
        const r = parseSpecFile(text);
        if (!r.ok) for (const e of r.errors) expect(e.line).toBeLessThanOrEqual(text.split('\n').length);
      }),
      { numRuns: 1000 },
    );
  });
});

/** f with every interval carrying its bounds in ns, as the parser writes them (hand-computed from the seconds). */
function withIntervalNs(f: Formula): Formula {
  const ns = (i: Interval | null): Interval | null =>
    i === null ? null : { ...i, loNs: Math.round(i.lo * 1e9), hiNs: Math.round(i.hi * 1e9) };
  switch (f.kind) {
    case 'literal':
    case 'atom':
    case 'compare':
      return f;
    case 'not':
      return { ...f, arg: withIntervalNs(f.arg) };
    case 'and':
    case 'or':
    case 'implies':
      return { ...f, left: withIntervalNs(f.left), right: withIntervalNs(f.right) };
    case 'always':
    case 'eventually':
    case 'historically':
    case 'once':
      return { ...f, interval: ns(f.interval), arg: withIntervalNs(f.arg) };
    case 'until':
    case 'since':
      return { ...f, interval: ns(f.interval), left: withIntervalNs(f.left), right: withIntervalNs(f.right) };
  }
}
