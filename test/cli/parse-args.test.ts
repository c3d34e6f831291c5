import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseArgs } from '../../src/cli/command.js';

const spec = { strings: ['out', 'index', 'x'], booleans: ['ros-only', 'y'] };
const parsed = (args: string[]) => {
  const p = parseArgs(args, spec);
  return p.ok ? { options: Object.fromEntries(p.options), positionals: p.positionals } : p.error;
};

describe('CLI argument parsing (node:util parseArgs tokens, armguard rules)', () => {
  it('reads --name value, --name=value, booleans and positionals; the last occurrence wins', () => {
    expect(parsed(['a.mcap', '--out', 'b.mcap', '--ros-only', '--index=i.jsonl', '--out=c.mcap', 'd'])).toEqual({
      options: { out: 'c.mcap', 'ros-only': true, index: 'i.jsonl' },
      positionals: ['a.mcap', 'd'],
    });
  });

  it('single-dash words are positionals or values, never options (even a one-letter option name)', () => {
    expect(parsed(['-0.5', '-x', '--out', '-1', '-', '-ab'])).toEqual({
      options: { out: '-1' },
      positionals: ['-0.5', '-x', '-', '-ab'],
    });
    expect(parsed(['-x', '--out', 'o', '--x', 'v'])).toEqual({ options: { out: 'o', x: 'v' }, positionals: ['-x'] });
  });

  it('everything after -- is positional', () => {
    expect(parsed(['--y', '--', '--out', 'x', '--nope'])).toEqual({
      options: { y: true },
      positionals: ['--out', 'x', '--nope'],
    });
  });

  it('errors name the option and what was expected', () => {
    expect(parsed(['--nope'])).toBe('unknown option --nope (known: --out, --index, --x, --ros-only, --y)');
    expect(parsed(['a', '--nope=3'])).toBe('unknown option --nope (known: --out, --index, --x, --ros-only, --y)');
    expect(parseArgs(['--z'], {})).toEqual({ ok: false, error: 'unknown option --z' });
    expect(parsed(['--out'])).toBe('option --out needs a value');
    expect(parsed(['--out', '--ros-only'])).toBe('option --out needs a value (got option --ros-only)');
    expect(parsed(['--out=--ros-only'])).toEqual({ options: { out: '--ros-only' }, positionals: [] });
    expect(parsed(['--ros-only=1'])).toBe('option --ros-only takes no value');
    expect(parsed(['--y=', 'a'])).toBe('option --y takes no value');
  });

  it('round-trips any well-formed command line built from the rules (property)', () => {
    type Item =
      | { kind: 'string'; name: 'out' | 'index' | 'x'; value: string; inline: boolean }
      | { kind: 'bool'; name: 'ros-only' | 'y' }
      | { kind: 'pos'; value: string };
    const value = fc.oneof(
      fc.string({ minLength: 1, maxLength: 6 }).filter((s) => !s.startsWith('--')),
      fc.double({ noNaN: true }).map(String),
    );
    const item: fc.Arbitrary<Item> = fc.oneof(
      fc.record({
        kind: fc.constant('string' as const),
        name: fc.constantFrom('out' as const, 'index' as const, 'x' as const),
        value,
        inline: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('bool' as const), name: fc.constantFrom('ros-only' as const, 'y' as const) }),
      fc.record({
        kind: fc.constant('pos' as const),
        value: value.filter((s) => !s.startsWith('-') || s.length === 1 || !s.startsWith('--')),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 10 }),
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
        (items, tail) => {
          const argv: string[] = [];
          const options: Record<string, string | true> = {};
          const positionals: string[] = [];
          for (const it of items) {
            if (it.kind === 'pos') {
              argv.push(it.value);
              positionals.push(it.value);
            } else if (it.kind === 'bool') {
              argv.push(`--${it.name}`);
              options[it.name] = true;
            } else {
              argv.push(...(it.inline ? [`--${it.name}=${it.value}`] : [`--${it.name}`, it.value]));
              options[it.name] = it.value;
            }
          }
          argv.push('--', ...tail);
          positionals.push(...tail);
          expect(parsed(argv)).toEqual({ options, positionals });
        },
      ),
      { numRuns: 500 },
    );
  });
});
