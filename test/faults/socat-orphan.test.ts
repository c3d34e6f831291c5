/**
 * Issue 14 item 8: a killed `run` left its socat child running. A real `armguard run --emulator`
 * process is SIGKILLed (no exit handler can run); its socat (found by the pty names it was given,
 * which carry the run's pid) must be gone within a second or so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PARENT_POLL_S } from '../../drivers/feetech/socat-pty.js';
import { emulatedRunArgs, eventually, processesWith, runDir, startArmguard } from '../support/run-process.js';

describe('socat dies with its parent', () => {
  it('SIGKILL of a running `armguard run --emulator` ends its socat', async () => {
    const { dir, access } = runDir('armguard-fault-socat-');
    const run = startArmguard([
      'run',
      ...emulatedRunArgs(access, '--broker-port', '0', '--episodes-dir', dir, '--max-age', '0.5'),
    ]);
    try {
      await run.waitFor(/^episode: /, 30);
      const needle = `armguard-pty-${run.child.pid}-`;
      const socat = processesWith(needle).filter((pid) => /^socat/.test(cmdName(pid)));
      expect(socat.length, `a socat with ${needle} runs`).toBe(1);
      run.child.kill('SIGKILL');
      expect(await run.exited).toBe('SIGKILL');
      const gone = await eventually(() => processesWith(needle).length === 0, 2 + 5 * PARENT_POLL_S);
      const left = processesWith(needle);
      for (const pid of left) process.kill(pid, 'SIGKILL'); // do not leak it into other tests
      expect(gone, `left running: ${left.map((p) => `${p} ${cmdName(p)}`).join('; ')}`).toBe(true);
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  }, 60_000);
});

function cmdName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.split('/').pop()!;
  } catch {
    return '';
  }
}
