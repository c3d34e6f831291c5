import { describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { closestMatch } from '../../src/util/levenshtein.js';
import { InputError } from '../../src/util/errors.js';

describe('ManualTimers', () => {
  it('fires timeouts and intervals in time order without real sleeps', () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimers(clock);
    const fired: string[] = [];
    timers.setTimeout(() => fired.push(`a@${clock.now()}`), 0.5);
    const h = timers.setInterval(() => fired.push(`i@${clock.now()}`), 0.2);
    timers.advanceTo(0.7);
    h.cancel();
    timers.advanceTo(2);
    expect(fired).toEqual(['i@0.2', 'i@0.4', 'a@0.5', 'i@0.6000000000000001']);
    expect(clock.now()).toBe(2);
  });
});

describe('diagnostic helpers', () => {
  it('suggests the closest signal name', () => {
    expect(closestMatch('forse', ['force', 'torque'])).toBe('force');
    expect(closestMatch('zzzzzz', ['force', 'torque'])).toBeUndefined();
  });
  it('InputError names file, line and field', () => {
    const e = new InputError({ file: 'a.yaml', line: 3, field: 'threshold' }, 'expected a number');
    expect(e.message).toBe("a.yaml:3 field 'threshold': expected a number");
  });
});
