/**
 * Arm-side heartbeat watchdog (design §6): a driver feeds it the gate's heartbeats and asks it on
 * every control cycle whether to hold by itself. Pure: time is passed in. Before the first beat it
 * counts from `start`, so an arm whose gate never came up also ends held.
 */
export type HeartbeatStatus = 'alive' | 'expired-now' | 'expired';

export class HeartbeatWatchdog {
  private last: number;
  private tripped = false;

  /** `timeout` seconds without a beat expire it; `start` is the time the driver started waiting. */
  constructor(
    readonly timeout: number,
    start: number,
  ) {
    if (!(timeout > 0)) throw new RangeError(`heartbeat timeout must be > 0 s, got ${timeout}`);
    this.last = start;
  }

  beat(now: number): void {
    if (now > this.last || this.last !== this.last) this.last = now;
    this.tripped = false;
  }

  /**
   * 'expired-now' exactly once per outage (the driver sends its hold then), 'expired' after that,
   * 'alive' while beats arrive. A non-finite `now` counts as expired: on doubt, hold.
   */
  poll(now: number): HeartbeatStatus {
    const alive = now - this.last <= this.timeout;
    if (alive) return 'alive';
    if (this.tripped) return 'expired';
    this.tripped = true;
    return 'expired-now';
  }

  /** Seconds since the last beat (or since start). */
  silence(now: number): number {
    return now - this.last;
  }
}
