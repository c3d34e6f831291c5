/**
 * Issue 14 item 12: `run --dashboard <port in use>` died with a raw stack trace and orphaned
 * socat; `--broker-port <port in use>` printed the error and never exited. Every start-up failure
 * must give a clear message, stop everything started so far, and exit non-zero. Real `armguard
 * run` processes against ports really held by another listener.
 */
import { createServer, type Server } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatedRunArgs, eventually, processesWith, runDir, startArmguard } from '../support/run-process.js';

let blocker: Server;
let busyPort = 0;

beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  busyPort = (blocker.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => blocker.close(() => r())));

async function expectCleanFailure(args: (dir: string, access: string) => string[], message: RegExp): Promise<void> {
  const { dir, access } = runDir('armguard-fault-startup-');
  const run = startArmguard(['run', ...emulatedRunArgs(access, ...args(dir, access))]);
  const timeout = setTimeout(() => run.child.kill('SIGKILL'), 40_000);
  const code = await run.exited;
  clearTimeout(timeout);
  const text = run.lines.join('\n');
  expect(code, text).toBe(1);
  expect(text).toMatch(message);
  expect(text).toMatch(/everything started so far was stopped/);
  expect(text).not.toMatch(/^\s+at /m); // no stack trace
  // Nothing of the run is left: no socat named after its pid.
  expect(await eventually(() => processesWith(`armguard-pty-${run.child.pid}-`).length === 0, 2)).toBe(true);
}

describe('start-up failures end cleanly', () => {
  it('--dashboard on a port in use: clear message, exit 1, socat gone', async () => {
    await expectCleanFailure(
      (dir) => ['--broker-port', '0', '--episodes-dir', dir, '--dashboard', String(busyPort)],
      // The dashboard starts with the broker in the network worker: the step names both.
      new RegExp(
        `armguard run: cannot start the embedded MQTT broker on 127\\.0\\.0\\.1:0 or the dashboard on 127\\.0\\.0\\.1:${busyPort}: port ${busyPort} is already in use by another program`,
      ),
    );
  }, 60_000);

  it('--broker-port in use: clear message and the process exits 1 (it used to hang)', async () => {
    await expectCleanFailure(
      (dir) => ['--broker-port', String(busyPort), '--episodes-dir', dir],
      new RegExp(
        `armguard run: cannot start the embedded MQTT broker on 127\\.0\\.0\\.1:${busyPort}: port ${busyPort} is already in use`,
      ),
    );
  }, 60_000);

  it('an episodes folder that cannot be created: clear message and exit 1', async () => {
    const { dir } = runDir('armguard-fault-startup-');
    const notADir = join(dir, 'plain-file');
    writeFileSync(notADir, 'x');
    await expectCleanFailure(
      () => ['--broker-port', '0', '--episodes-dir', join(notADir, 'episodes')],
      /armguard run: cannot start the first episode file in .*plain-file\/episodes: .*(ENOTDIR|EEXIST)/,
    );
  }, 60_000);
});
