/**
 * `armguard/episode`: episode files (SPEC §8) — EpisodeRecorder writes one MCAP file per episode,
 * readEpisode / readEpisodeTrace read them back; plus what a recorder needs from outside (signal
 * frames, the system timers that drive its periodic flush).
 */
export * from '../episode/index.js';
export { SIGNALS, SignalFrame, signalIndex, type SignalName } from '../schema/signals.js';
export { systemClock, systemTimers } from '../platform/system-clock.js';
export type { Clock, Timers, TimerHandle } from '../util/clock.js';
