/**
 * Default real timers and clock for the Feetech driver when the composition root passes none.
 * Drivers may not import src/runtime (lint rule), so this is the driver's own tiny copy.
 */
import { performance } from 'node:perf_hooks';
import type { Clock, TimerHandle, Timers } from '../../src/util/clock.js';

export const driverClock: Clock = { now: () => performance.now() / 1000 };

export const driverTimers: Timers = {
  setTimeout(fn, seconds): TimerHandle {
    const h = setTimeout(fn, seconds * 1000);
    return { cancel: () => clearTimeout(h) };
  },
  setInterval(fn, seconds): TimerHandle {
    const h = setInterval(fn, seconds * 1000);
    return { cancel: () => clearInterval(h) };
  },
};
