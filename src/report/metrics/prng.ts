/**
 * Seeded pseudo-random numbers for bootstraps: xoshiro128** (Blackman & Vigna) seeded through
 * splitmix32. Deterministic across runs and platforms; never Math.random.
 */
export class Xoshiro128 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** A generator with an explicit 128-bit state (for checks against the reference sequence). */
  static fromState(a: number, b: number, c: number, d: number): Xoshiro128 {
    const g = new Xoshiro128(0);
    g.a = a >>> 0;
    g.b = b >>> 0;
    g.c = c >>> 0;
    g.d = d >>> 0;
    return g;
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  nextFloat(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n), n ≤ 2^21 (bias below n / 2^32). */
  nextInt(n: number): number {
    return Math.floor((this.nextU32() * n) / 4294967296);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
