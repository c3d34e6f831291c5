/**
 * Failed-login rate limit per client address, shared by the embedded broker and the dashboard:
 * after `maxFailures` failed logins within `windowSeconds` from one address, further logins from
 * it are refused without checking the password until the oldest of those failures is older than
 * the window. Memory is bounded: at most `maxAddresses` addresses are tracked (oldest dropped).
 * Pure: time is passed in.
 */
export interface LoginThrottleOptions {
  maxFailures?: number;
  windowSeconds?: number;
  maxAddresses?: number;
}

export type ThrottleDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  readonly maxFailures: number;
  readonly windowSeconds: number;
  private readonly maxAddresses: number;

  constructor(options: LoginThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowSeconds = options.windowSeconds ?? 60;
    this.maxAddresses = options.maxAddresses ?? 10_000;
  }

  /** May `address` try a login at `now`? */
  check(address: string, now: number): ThrottleDecision {
    const times = this.recent(address, now);
    if (times.length < this.maxFailures) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(0, times[0]! + this.windowSeconds - now) };
  }

  failed(address: string, now: number): void {
    const times = this.recent(address, now);
    times.push(now);
    if (times.length > this.maxFailures) times.shift();
    // re-insert so the map's order is least recently failed first
    this.failures.delete(address);
    this.failures.set(address, times);
    if (this.failures.size > this.maxAddresses) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  succeeded(address: string): void {
    this.failures.delete(address);
  }

  private recent(address: string, now: number): number[] {
    const times = this.failures.get(address) ?? [];
    while (times.length > 0 && now - times[0]! >= this.windowSeconds) times.shift();
    return times;
  }
}
