/**
 * `run --control-fifo <priority>` (issue 14 item 3): the control thread — the process's main thread —
 * at SCHED_FIFO once everything has started, every other thread (network and filter workers, V8's
 * and libuv's) left at the normal policy; without the privilege, a clear refusal at start-up that
 * stops everything started. Real `armguard run` processes; the policy is read from /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emulatedRunArgs, eventually, processesWith, runDir, startArmguard } from '../support/run-process.js';

/** policy and real-time priority of one thread of process `pid` (/proc stat fields 41 and 40). */
function scheduling(pid: number, tid: number): { policy: number; priority: number } {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { policy: Number(rest[41 - 3]), priority: Number(rest[40 - 3]) };
}

describe('run --control-fifo', () => {
  it('puts the control thread alone at SCHED_FIFO, and says so', async () => {
    const { dir, access } = runDir('armguard-fault-fifo-');
    const run = startArmguard([
      'run',
      ...emulatedRunArgs(
        access,
        '--broker-port',
        '0',
        '--episodes-dir',
        dir,
        '--duration',
        '4',
        '--control-fifo',
        '10',
      ),
    ]);
    const timeout = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
    try {
      const m = await run.waitFor(/control thread: SCHED_FIFO priority 10 \(thread (\d+);/, 40);
      const pid = run.child.pid!;
      expect(Number(m[1])).toBe(pid);
      expect(scheduling(pid, pid)).toEqual({ policy: 1, priority: 10 });
      const others = readdirSync(`/proc/${pid}/task`)
        .map(Number)
        .filter((t) => t !== pid);
      // node's own threads and the two workers (network, chunk filter) at least
      expect(others.length).toBeGreaterThanOrEqual(6);
      for (const t of others) expect(scheduling(pid, t), `thread ${t}`).toEqual({ policy: 0, priority: 0 });
      expect(await run.exited, run.lines.join('\n')).toBe(0);
    } finally {
      clearTimeout(timeout);
    }
  }, 90_000);

  it('without the privilege: a clear refusal, the arm held, everything stopped, exit 1', async () => {
    const { dir, access } = runDir('armguard-fault-fifo-');
    // as root without CAP_SYS_NICE (and RLIMIT_RTPRIO 0): what an unprivileged user gets
    const run = startArmguard(
      ['run', ...emulatedRunArgs(access, '--broker-port', '0', '--episodes-dir', dir, '--control-fifo', '10')],
      ['setpriv', '--bounding-set=-sys_nice', '--'],
    );
    const timeout = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
    const code = await run.exited;
    clearTimeout(timeout);
    const text = run.lines.join('\n');
    expect(code, text).toBe(1);
    expect(text).toMatch(/armguard run: --control-fifo 10: chrt -f -R -p 10 \d+ failed: .*Operation not permitted/);
    expect(text).toMatch(/everything started so far was stopped; arm held/);
    expect(text).not.toMatch(/^\s+at /m);
    expect(await eventually(() => processesWith(`armguard-pty-${run.child.pid}-`).length === 0, 2)).toBe(true);
  }, 90_000);

  it('a priority outside 1–99 is a usage error', async () => {
    const { dir, access } = runDir('armguard-fault-fifo-');
    const run = startArmguard(['run', ...emulatedRunArgs(access, '--episodes-dir', dir, '--control-fifo', '100')]);
    const code = await run.exited;
    expect(code).toBe(2);
    expect(run.lines.join('\n')).toMatch(/--control-fifo: expected a real-time priority from 1 to 99, got '100'/);
  }, 30_000);
});
