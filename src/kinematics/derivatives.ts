/**
 * End-effector speed, acceleration and jerk from positions (design §2 diagnostics: "5-step smoothed
 * finite differences"), causal so it runs online: each level is the backward difference of the
 * level below divided by the sample interval, averaged over the last `window` values. Values are
 * NaN until a level has a full window. No allocation per sample.
 */
import { length3 } from './transform.js';
class VectorAverage {
  private readonly buf: Float64Array;
  private n = 0;
  private i = 0;
  readonly mean = new Float64Array(3);
  constructor(readonly window: number) {
    this.buf = new Float64Array(3 * window);
  }
  push(x: number, y: number, z: number): boolean {
    const o = 3 * this.i;
    this.buf[o] = x;
    this.buf[o + 1] = y;
    this.buf[o + 2] = z;
    this.i = (this.i + 1) % this.window;
    if (this.n < this.window) this.n++;
    if (this.n < this.window) return false;
    let sx = 0,
      sy = 0,
      sz = 0;
    for (let k = 0; k < this.window; k++) {
      sx += this.buf[3 * k]!;
      sy += this.buf[3 * k + 1]!;
      sz += this.buf[3 * k + 2]!;
    }
    this.mean[0] = sx / this.window;
    this.mean[1] = sy / this.window;
    this.mean[2] = sz / this.window;
    return true;
  }
  reset(): void {
    this.n = 0;
    this.i = 0;
  }
}

export class SmoothedDerivatives {
  speed = NaN;
  acc = NaN;
  jerk = NaN;
  private readonly levels: VectorAverage[];
  /** Previous value per level: position, smoothed velocity, smoothed acceleration (+ valid flags). */
  private readonly prev = new Float64Array(9);
  private readonly prevValid = new Uint8Array(3);
  private lastT = NaN;

  constructor(readonly window = 5) {
    this.levels = [new VectorAverage(window), new VectorAverage(window), new VectorAverage(window)];
  }

  push(t: number, x: number, y: number, z: number): void {
    const dt = t - this.lastT;
    if (!(dt > 0)) {
      // First sample or a repeated/backwards time: restart.
      this.reset();
      this.lastT = t;
      this.store(0, x, y, z);
      return;
    }
    this.lastT = t;
    let vx = x,
      vy = y,
      vz = z;
    this.speed = this.acc = this.jerk = NaN;
    for (let L = 0; L < 3; L++) {
      if (!this.prevValid[L]) {
        this.store(L, vx, vy, vz);
        break;
      }
      const dx = (vx - this.prev[3 * L]!) / dt,
        dy = (vy - this.prev[3 * L + 1]!) / dt,
        dz = (vz - this.prev[3 * L + 2]!) / dt;
      this.store(L, vx, vy, vz);
      const lev = this.levels[L]!;
      if (!lev.push(dx, dy, dz)) break;
      vx = lev.mean[0]!;
      vy = lev.mean[1]!;
      vz = lev.mean[2]!;
      const m = length3(vx, vy, vz);
      if (L === 0) this.speed = m;
      else if (L === 1) this.acc = m;
      else this.jerk = m;
    }
  }

  reset(): void {
    this.prevValid.fill(0);
    for (const l of this.levels) l.reset();
    this.speed = this.acc = this.jerk = NaN;
    this.lastT = NaN;
  }

  private store(L: number, x: number, y: number, z: number): void {
    this.prev[3 * L] = x;
    this.prev[3 * L + 1] = y;
    this.prev[3 * L + 2] = z;
    this.prevValid[L] = 1;
  }
}
