import { performance } from 'node:perf_hooks';
import type { Clock, TimerHandle, Timers } from '../util/clock.js';

/** The real monotonic clock, in seconds. Only composition roots construct it. */
export const systemClock: Clock = { now: () => performance.now() / 1000 };

export const systemTimers: Timers = {
  setTimeout(fn, seconds): TimerHandle {
    const h = setTimeout(fn, seconds * 1000);
    return { cancel: () => clearTimeout(h) };
  },
  setInterval(fn, seconds): TimerHandle {
    const h = setInterval(fn, seconds * 1000);
    return { cancel: () => clearInterval(h) };
  },
};
