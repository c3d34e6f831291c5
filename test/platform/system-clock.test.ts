import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { systemClock } from '../../src/platform/system-clock.js';

describe('systemClock', () => {
  it('is on the OS monotonic clock that Python policies read with time.monotonic()', () => {
    const before = systemClock.now();
    const python = Number(execFileSync('python3', ['-c', 'import time; print(repr(time.monotonic()))']).toString());
    const after = systemClock.now();
    expect(python).toBeGreaterThanOrEqual(before - 1e-3);
    expect(python).toBeLessThanOrEqual(after + 1e-3);
  });
});
