/**
 * Time is an input. Core code receives timestamps; only the composition root owns a real clock
 * (see src/platform/system-clock.ts). Seconds as float64 throughout.
 */
export interface Clock {
  /** Monotonic seconds. */
  now(): number;
}

/** A clock tests and replays drive by hand. */
export class ManualClock implements Clock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    this.t = t;
  }
  advance(dt: number): void {
    this.t += dt;
  }
}

/** Injectable timers (MQTT.js style) so watchdogs and retries run without real sleeps in tests. */
export interface TimerHandle {
  cancel(): void;
}
export interface Timers {
  setTimeout(fn: () => void, seconds: number): TimerHandle;
  setInterval(fn: () => void, seconds: number): TimerHandle;
}

/** Timers driven by a ManualClock: `advanceTo` fires everything due, in order. */
export class ManualTimers implements Timers {
  private seq = 0;
  private readonly pending = new Map<number, { due: number; period: number | undefined; fn: () => void }>();
  constructor(readonly clock: ManualClock) {}

  setTimeout(fn: () => void, seconds: number): TimerHandle {
    return this.add(fn, seconds, undefined);
  }
  setInterval(fn: () => void, seconds: number): TimerHandle {
    return this.add(fn, seconds, Math.max(seconds, 1e-9));
  }
  private add(fn: () => void, seconds: number, period: number | undefined): TimerHandle {
    const id = ++this.seq;
    this.pending.set(id, { due: this.clock.now() + seconds, period, fn });
    return { cancel: () => void this.pending.delete(id) };
  }
  /** Advance the clock to `t`, firing due timers in time order. */
  advanceTo(t: number): void {
    for (;;) {
      let nextId = -1;
      let nextDue = Infinity;
      for (const [id, p] of this.pending) {
        if (p.due <= t && p.due < nextDue) {
          nextDue = p.due;
          nextId = id;
        }
      }
      const next = this.pending.get(nextId);
      if (!next) break;
      this.clock.set(Math.max(this.clock.now(), next.due));
      if (next.period === undefined) this.pending.delete(nextId);
      else next.due += next.period;
      next.fn();
    }
    this.clock.set(Math.max(this.clock.now(), t));
  }
  advance(dt: number): void {
    this.advanceTo(this.clock.now() + dt);
  }
  get size(): number {
    return this.pending.size;
  }
}
