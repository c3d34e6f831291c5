/**
 * Issue 14 item 13: the documented dry run (`armguard run so101 --emulator …`, the emulated servos
 * behind a socat pty, the real serial driver) held at once on a busy 2-core machine on a stale
 * signal. With the max ages and the watchdog derived from the read cycle measured at start-up, it
 * must not hold on a stale signal or the watchdog while the machine is loaded — here by two
 * CPU-burning child processes (one per core) started before armguard and running all along, on top
 * of whatever else the machine runs. Bounded: 8 s of running after the first episode opened. The
 * control, run at the same time, is the same dry run with the SPEC ages (`--max-age 0.05`): it holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CAL, TASK, runDir, startArmguard, type RunProcess } from './support/run-process.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A child process that keeps one core busy until it is killed. */
function burner(): ChildProcess {
  const c = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

const RUN_S = 8;

describe('the dry run on a loaded machine', () => {
  it('derives its timing from the loaded read cycle and does not hold on a stale signal or the watchdog', async () => {
    burner();
    burner();
    await new Promise((r) => setTimeout(r, 500));
    // The control: the same run with the SPEC ages (--max-age 0.05) at the same time, which holds.
    const [derived, control] = [[], ['--max-age', '0.05']].map((extra) => {
      const { dir, access } = runDir('armguard-fault-load-');
      const run = startArmguard([
        'run',
        'so101',
        '--emulator',
        '--calibration',
        CAL,
        '--task',
        TASK,
        '--access',
        access,
        '--broker-port',
        '0',
        '--episodes-dir',
        dir,
        ...extra,
      ]);
      children.push(run.child);
      return run;
    }) as [RunProcess, RunProcess];
    const timing = (await derived.waitFor(/timing: \d.*/, 60))[0];
    await Promise.all([derived.waitFor(/^episode: /, 60), control.waitFor(/^episode: /, 60)]);
    await new Promise((r) => setTimeout(r, RUN_S * 1000));
    for (const run of [derived, control]) run.child.kill('SIGINT');
    await Promise.all([derived.exited, control.exited]);
    const staleHolds = (run: RunProcess) => run.lines.filter((l) => /→ hold: .*(stale|watchdog)/.test(l));
    expect(staleHolds(derived), `${timing}\n${staleHolds(derived).join('\n')}`).toEqual([]);
    expect(timing).toMatch(/max-age floor [\d.]+ s/);
    expect(staleHolds(control).length, control.lines.join('\n')).toBeGreaterThan(0);
  }, 120_000);
});
