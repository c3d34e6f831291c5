/**
 * The fixed-rate control loop of `armguard run`: every tick steps the pipeline at the clock's now.
 * The arm's serial reads are asynchronous and started from the tick (one in flight at a time), so
 * a slow or dead bus never blocks a step — the pipeline's watchdog and staleness checks see it.
 */
import type { Clock, TimerHandle, Timers } from '../../util/clock.js';

export interface ControlLoopOptions {
  clock: Clock;
  timers: Timers;
  /** Steps per second. */
  rate: number;
  /** One control step at `now` (must not throw; errors are reported through `onError`). */
  step: (now: number) => void;
  /** Start one arm read; the loop starts the next only after it settled. */
  read: () => Promise<unknown>;
  onError?: (e: unknown) => void;
}

export class ControlLoop {
  private timer: TimerHandle | undefined;
  private reading = false;
  /** Steps taken and reads started (diagnostics). */
  steps = 0;
  reads = 0;

  constructor(private readonly o: ControlLoopOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = this.o.timers.setInterval(() => this.tick(), 1 / this.o.rate);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** One tick (public so tests with ManualTimers and the shutdown path can drive it). */
  tick(): void {
    if (!this.reading) {
      this.reading = true;
      this.reads++;
      let p: Promise<unknown>;
      try {
        p = this.o.read();
      } catch (e) {
        p = Promise.reject(e);
      }
      p.catch((e: unknown) => this.o.onError?.(e)).finally(() => {
        this.reading = false;
      });
    }
    try {
      this.steps++;
      this.o.step(this.o.clock.now());
    } catch (e) {
      this.o.onError?.(e);
    }
  }
}
