export { ArmguardError, InputError, assertNever, formatWhere } from './errors.js';
export { err, ok, type Result, type Verdict } from './result.js';
export { ManualClock, ManualTimers, type Clock, type TimerHandle, type Timers } from './clock.js';
export { Float64Ring } from './ring-buffer.js';
export { MonotonicDeque } from './monotonic-deque.js';
export { closestMatch, levenshtein } from './levenshtein.js';
export { Xoshiro128, boxMuller, gaussian, mulberry32, mulberry32Open, symmetric } from './rng.js';
export { Listeners } from './listeners.js';
export { concatBytes } from './bytes.js';
