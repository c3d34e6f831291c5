import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseArgs } from '../../src/cli/command.js';
import { captureIo } from '../support/cli-io.js';

describe('armguard CLI', () => {
  it('--help lists the commands', async () => {
    const c = captureIo();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/check\s+validate/);
  });
  it('an unknown command is a usage error', async () => {
    const c = captureIo();
    expect(await main(['frobnicate'], c.io)).toBe(2);
    expect(c.err.join('\n')).toContain("unknown command 'frobnicate'");
  });
  it('check with a missing file names the file', async () => {
    const c = captureIo();
    expect(await main(['check', '/nonexistent/x.stl'], c.io)).toBe(1);
    expect(c.err.join('\n')).toContain('/nonexistent/x.stl');
  });
  it('parseArgs rejects unknown options and missing values', () => {
    expect(parseArgs(['--x'], { strings: ['y'] })).toMatchObject({ ok: false });
    expect(parseArgs(['--y'], { strings: ['y'] })).toMatchObject({ ok: false, error: 'option --y needs a value' });
    // the next option is not taken as the value: `repair f.mcap --out --ros-only` is a mistake, not a file named '--ros-only'
    expect(parseArgs(['--y', '--b'], { strings: ['y'], booleans: ['b'] })).toEqual({
      ok: false,
      error: 'option --y needs a value (got option --b)',
    });
    expect(parseArgs(['--y=--b'], { strings: ['y'], booleans: ['b'] })).toMatchObject({ ok: true });
    expect(parseArgs(['--y', '-0.5'], { strings: ['y'] })).toMatchObject({ ok: true }); // negative numbers are values
    const r = parseArgs(['a', '--y=1', '--b', 'c'], { strings: ['y'], booleans: ['b'] });
    expect(r).toMatchObject({ ok: true, positionals: ['a', 'c'] });
  });
});
