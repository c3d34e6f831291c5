import type { Clock, TimerHandle, Timers } from '../util/clock.js';

/**
 * The real monotonic clock, in seconds: the operating system's CLOCK_MONOTONIC, the same time base
 * as Python's `time.monotonic()` and C++'s `steady_clock` on Linux, so a policy process on the same
 * machine can stamp its chunks in armguard's time. Composition roots (CLI, nodes) and drivers run standalone (the emulator process) use it; the core takes time as input.
 */
export const systemClock: Clock = { now: () => Number(process.hrtime.bigint()) / 1e9 };

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
