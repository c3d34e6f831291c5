import { describe, expect, it } from 'vitest';
import { HeartbeatWatchdog } from '../../src/gate/index.js';

describe('HeartbeatWatchdog', () => {
  it('stays alive while beats arrive within the timeout, trips once when they stop', () => {
    const w = new HeartbeatWatchdog(0.1, 0);
    const seen: string[] = [];
    for (let k = 0; k <= 10; k++) {
      w.beat(k * 0.05);
      seen.push(w.poll(k * 0.05 + 0.01));
    }
    expect(seen.every((s) => s === 'alive')).toBe(true);
    expect(w.poll(0.6)).toBe('alive'); // last beat at 0.5, 0.1 s silence is allowed
    expect(w.poll(0.6001)).toBe('expired-now');
    expect(w.poll(0.7)).toBe('expired');
    expect(w.poll(5)).toBe('expired');
    w.beat(5);
    expect(w.poll(5.01)).toBe('alive');
    expect(w.poll(5.2)).toBe('expired-now');
  });

  it('expires when no beat ever arrives after start, and on a non-finite time', () => {
    const w = new HeartbeatWatchdog(0.2, 10);
    expect(w.poll(10.1)).toBe('alive');
    expect(w.poll(10.3)).toBe('expired-now');
    const n = new HeartbeatWatchdog(0.2, 0);
    expect(n.poll(NaN)).toBe('expired-now');
  });

  it('ignores a beat stamped in the past (a late heartbeat does not extend life backwards)', () => {
    const w = new HeartbeatWatchdog(0.1, 0);
    w.beat(1);
    w.beat(0.5);
    expect(w.silence(1.05)).toBeCloseTo(0.05, 12);
  });

  it('rejects a non-positive timeout', () => {
    expect(() => new HeartbeatWatchdog(0, 0)).toThrow(/timeout/);
  });
});
