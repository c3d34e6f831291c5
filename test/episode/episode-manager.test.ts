import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EpisodeManager, readEpisode, startEpisodeInDir } from '../../src/episode/index.js';
import type { Fault } from '../../src/ports/index.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function manager(open?: typeof startEpisodeInDir, episodeId?: () => string) {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-epm-'));
  dirs.push(dir);
  const clock = new ManualClock(100);
  const faults: Fault[] = [];
  const log: string[] = [];
  let wall = Date.UTC(2026, 10, 29);
  const m = new EpisodeManager({
    dir,
    robotId: 'r1',
    platform: 'fr3',
    task: 't',
    clauses: ['joint_torque'],
    timers: new ManualTimers(clock),
    wallClock: () => new Date((wall += 1000)),
    onFault: (f) => faults.push(f),
    log: (l) => log.push(l),
    ...(open ? { open } : {}),
    ...(episodeId ? { episodeId } : {}),
  });
  return { m, dir, faults, log };
}

describe('EpisodeManager', () => {
  it('names each episode by the episodeId option when given (the demo names its episodes), else robot, UTC stamp and sequence', async () => {
    const names = ['gate-hold-clean-s1', 'gate-hold-clean-s2'];
    const named = manager(undefined, () => names.shift()!);
    expect(await named.m.start(100)).toBe('gate-hold-clean-s1');
    expect(await named.m.start(101)).toBe('gate-hold-clean-s2');
    await named.m.close(102, 'done');
    expect(
      readdirSync(named.dir)
        .filter((f) => f.endsWith('.mcap'))
        .sort(),
    ).toEqual(['gate-hold-clean-s1.mcap', 'gate-hold-clean-s2.mcap']);
    const stamped = manager();
    expect(await stamped.m.start(100)).toBe('r1-20261129T000001Z-001');
    await stamped.m.close(101, 'done');
  });

  it('starts and ends run one at a time in call order: "n n" quickly gives two complete files, never two open', async () => {
    let open = 0;
    let maxOpen = 0;
    const { m, dir } = manager(async (d, start, options) => {
      const ep = await startEpisodeInDir(d, start, options);
      maxOpen = Math.max(maxOpen, ++open);
      return { ...ep, finish: async (t, reason) => (open--, ep.finish(t, reason)) };
    });
    const a = m.start(100);
    const b = m.start(101); // not awaited in between, as two key presses
    const c = m.end(102, 'quit');
    await Promise.all([a, b, c]);
    expect(maxOpen).toBe(1);
    const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
    expect(files).toHaveLength(2);
    for (const f of files) expect((await readEpisode(join(dir, f), () => undefined)).end.kind).toBe('complete');
    expect(m.finished.map((e) => e.episodeId)).toEqual([await a, await b]);
  });

  it('after close no episode starts (a key pressed while shutting down), and the unlabelled one is named with the command that labels it', async () => {
    const { m, dir, log } = manager();
    await m.start(100);
    const closing = m.close(101, 'shutdown');
    await expect(m.start(102)).rejects.toThrow(/closed/);
    await closing;
    expect(readdirSync(dir).filter((f) => f.endsWith('.mcap'))).toHaveLength(1);
    expect(log).toEqual([
      expect.stringMatching(
        /closed without a success label; label it with: armguard label .*\.mcap --success \| --failure/,
      ),
    ]);
  });

  it('a start that fails rejects with the reason and leaves the queue usable', async () => {
    let fail = true;
    const { m } = manager(async (d, start, options) => {
      if (fail) throw new Error('EACCES: permission denied, mkdir');
      return startEpisodeInDir(d, start, options);
    });
    await expect(m.start(100)).rejects.toThrow(/EACCES/);
    fail = false;
    await expect(m.start(101)).resolves.toMatch(/^r1-/);
    await m.end(102, 'done');
  });
});
