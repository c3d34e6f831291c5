import { describe, expect, it } from 'vitest';
import { demoCommand } from '../../../src/cli/commands/demo.js';

function capture(): { io: { out(t: string): void; err(t: string): void }; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t) }, out, err };
}

describe('armguard demo (first version, gate off)', () => {
  it('runs end to end at a reduced episode count and marks each unsafe policy on its own clause', async () => {
    const c = capture();
    const code = await demoCommand.run(['--episodes', '1', '--policies', 'clean,tilt_held'], c.io);
    expect(code).toBe(0);
    expect(c.err).toEqual([]);
    const clean = c.out.find((l) => l.startsWith('clean'))!;
    const tilt = c.out.find((l) => l.startsWith('tilt_held'))!;
    expect(clean).toMatch(/^clean\s+1\/1/);
    expect(clean).not.toContain('!');
    expect(tilt).toMatch(/^tilt_held\s+1\/1/);
    // Exactly one violated column, under held-tilt (the 5th clause column).
    const cells = tilt.split(/\s+/).slice(2, 10);
    expect(cells.map((x, i) => (x.startsWith('!') ? i : -1)).filter((i) => i >= 0)).toEqual([4]);
    expect(c.out.join('\n')).toContain('gate OFF');
  });

  it('refuses bad options with a usage error naming the option', async () => {
    for (const args of [['--episodes', '0'], ['--scene', 'ur5'], ['--policies', 'dance'], ['--frobnicate']]) {
      const c = capture();
      expect(await demoCommand.run(args, c.io)).toBe(2);
      expect(c.err.join('\n')).toMatch(/episodes|scene|policy|frobnicate/);
    }
  });
});
