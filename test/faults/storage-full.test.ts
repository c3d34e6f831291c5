/**
 * Issue 14 item 2: a storage fault released after 1 s while records were still being dropped.
 * A real `armguard run --emulator` records onto a real small tmpfs; the test fills it (ENOSPC),
 * and over MQTT, as the operator: a release while the disk is full is refused (also after the
 * gate's 1 s fault quiet period), a label is refused, never confirmed; once space is freed the
 * recorder writes again but the arm stays held until a release; a label is then confirmed only
 * after it is on storage. On SIGINT `run` exits 1 and says how many records were lost.
 *
 * Needs root to mount the tmpfs (CI runs .ci/run as root; so does this machine).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEpisode } from '../../src/episode/index.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { emulatedRunArgs, runDir, startArmguard } from '../support/run-process.js';

const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) execFileSync('umount', ['-l', m]);
});

function mountTmpfs(dir: string, size: string): void {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`this fault test mounts a small tmpfs and needs root (mount failed: ${(e as Error).message})`);
  }
  mounts.push(dir);
}

/** Write a filler file until the filesystem says ENOSPC. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(64 * 1024, 0x55);
  try {
    for (let n = block.length; n >= 1; ) {
      try {
        writeSync(fd, block, 0, n);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        n = n === 1 ? 0 : Math.max(1, n >> 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

const events = (c: RecordingClient, robot: string) =>
  c.messages
    .filter((m) => m.topic === topicFor(robot, 'events'))
    .map((m) => JSON.parse(m.payload) as { kind: string; detail: string });

describe('a full disk during a run', () => {
  it('holds until a write succeeds again and an operator releases; labels are never confirmed unwritten; run exits 1 with the loss', async () => {
    const { dir, access } = runDir('armguard-fault-storage-');
    const eps = join(dir, 'eps');
    mountTmpfs(eps, '4m');
    const robot = 'arm9';
    const run = startArmguard([
      'run',
      ...emulatedRunArgs(access, '--broker-port', '0', '--episodes-dir', eps, '--robot-id', robot, '--max-age', '0.5'),
    ]);
    const op = { client: undefined as RecordingClient | undefined };
    try {
      const url = (await run.waitFor(/^mqtt: (mqtt:\/\/\S+)/, 30))[1]!;
      const episodePath = (await run.waitFor(/^episode: (\S+\.mcap)/))[1]!;
      const alice = await RecordingClient.connect(url, 'alice', 'alice-secret');
      op.client = alice;
      for (const k of ['gate', 'events', 'labels'] as const) await alice.subscribe(topicFor(robot, k));
      // A healthy start: release the start-up hold (if any) so the storage hold is the one we see.
      // Armed before the fault (a start-up hold, if any, released): a release is then refused as 'gate is not holding'.
      const armedLines = () => run.lines.filter((l) => /gate hold → armed/.test(l)).length;
      const notHolding = (t: string, p: string) =>
        t === topicFor(robot, 'events') && /cmd\/release: gate is not holding/.test(p);
      for (let i = 0; i < 30 && !alice.messages.some((m) => notHolding(m.topic, m.payload)); i++) {
        await alice.publish(topicFor(robot, 'cmd/release'), JSON.stringify({ v: 1 }));
        await new Promise((r) => setTimeout(r, 500));
      }
      await alice.waitFor(notHolding, 5, 'an armed gate');
      fill(join(eps, 'filler'));
      await run.waitFor(/storage fault: .*ENOSPC/, 10);
      await run.waitFor(/gate \w+ → hold: .*storage/, 5);
      const armedBefore = armedLines();
      // Past the gate's 1 s fault quiet period, with the disk still full: a release is refused.
      await new Promise((r) => setTimeout(r, 1600));
      alice.messages.length = 0;
      await alice.publish(topicFor(robot, 'cmd/release'), JSON.stringify({ v: 1 }));
      await alice.waitFor(
        (t, p) => t === topicFor(robot, 'events') && /command-refused/.test(p) && /cmd\/release.*storage/.test(p),
        5,
        'release refused for storage',
      );
      // A label while the disk is full is refused and never confirmed.
      await alice.publish(topicFor(robot, 'cmd/label'), JSON.stringify({ v: 1, success: true, note: 'while full' }));
      await alice.waitFor(
        (t, p) =>
          t === topicFor(robot, 'events') && /cmd\/label.*label not recorded: episode storage is failing/.test(p),
        5,
        'label refused',
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(alice.messages.filter((m) => m.topic === topicFor(robot, 'labels'))).toEqual([]);
      expect(armedLines()).toBe(armedBefore);

      // Space again: the recorder writes, the gate still holds until the operator releases.
      rmSync(join(eps, 'filler'));
      await run.waitFor(
        /storage writes again \((\d+) record\(s\) of this episode lost while it failed\); the arm stays held/,
        10,
      );
      await new Promise((r) => setTimeout(r, 1200));
      expect(armedLines()).toBe(armedBefore); // still held
      await alice.publish(topicFor(robot, 'cmd/release'), JSON.stringify({ v: 1 }));
      for (let i = 0; i < 50 && armedLines() === armedBefore; i++) await new Promise((r) => setTimeout(r, 100));
      expect(armedLines()).toBe(armedBefore + 1);
      await alice.publish(
        topicFor(robot, 'cmd/label'),
        JSON.stringify({ v: 1, success: true, note: 'after recovery' }),
      );
      await alice.waitFor((t, p) => t === topicFor(robot, 'labels') && /after recovery/.test(p), 5, 'label confirmed');
      expect(events(alice, robot).some((e) => e.kind === 'storage-recovered')).toBe(true);

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(1);
      const lost = run.lines.join('\n').match(/data lost: (\d+) record\(s\) in 1 episode\(s\) were not written/);
      expect(lost, run.lines.join('\n')).not.toBeNull();
      expect(Number(lost![1])).toBeGreaterThan(10); // 100 Hz frames + ρ for over a second
      // The file is whole and says what happened.
      const gate: string[] = [];
      const labels: string[] = [];
      const scan = await readEpisode(episodePath, (r) => {
        if (r.kind === 'gate' && r.value.kind === 'event') gate.push(r.value.event);
        if (r.kind === 'label') labels.push(r.value.note ?? '');
      });
      expect(scan.end).toEqual({ kind: 'complete' });
      expect(gate).toContain('storage-recovered');
      expect(labels).toEqual(['after recovery']);
    } finally {
      await op.client?.end();
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  }, 90_000);
});
