/**
 * The run command's control loop on manual time: fixed-rate steps at the clock's now, one arm read
 * in flight at a time, and a read that never settles (a hung bus) never blocks a step.
 */
import { describe, expect, it } from 'vitest';
import { ControlLoop } from '../../src/cli/compose/control-loop.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';

describe('ControlLoop', () => {
  it('steps at the fixed rate with the clock time while a read hangs; the next read starts only after it settles', async () => {
    const clock = new ManualClock(10);
    const timers = new ManualTimers(clock);
    const steps: number[] = [];
    const pending: (() => void)[] = [];
    const loop = new ControlLoop({
      clock,
      timers,
      rate: 50,
      step: (now) => void steps.push(now),
      read: () => new Promise<void>((resolve) => pending.push(resolve)),
    });
    loop.start();
    for (let i = 0; i < 5; i++) timers.advance(0.02);
    expect(steps.map((t) => Math.round((t - 10) * 1000))).toEqual([20, 40, 60, 80, 100]);
    expect(loop.reads).toBe(1); // the first read never settled: no second read was queued behind it
    pending[0]!();
    await Promise.resolve();
    await Promise.resolve();
    timers.advance(0.02);
    expect(loop.reads).toBe(2);
    expect(steps).toHaveLength(6);
    loop.stop();
    timers.advance(0.1);
    expect(steps).toHaveLength(6);
  });

  it('a step or read that throws is reported and the loop keeps its rate', async () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimers(clock);
    const errors: string[] = [];
    let n = 0;
    const loop = new ControlLoop({
      clock,
      timers,
      rate: 100,
      step: () => {
        if (++n === 2) throw new Error('step broke');
      },
      read: () => {
        throw new Error('read broke');
      },
      onError: (e) => errors.push((e as Error).message),
    });
    loop.start();
    timers.advance(0.01);
    await new Promise((r) => setImmediate(r));
    timers.advance(0.01);
    timers.advance(0.01);
    await new Promise((r) => setImmediate(r));
    expect(loop.steps).toBe(3);
    expect(errors).toContain('step broke');
    expect(errors.filter((e) => e === 'read broke').length).toBeGreaterThanOrEqual(2);
    loop.stop();
  });
});
