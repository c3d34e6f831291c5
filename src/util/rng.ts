/**
 * Seeded pseudo-random numbers: the project's one module for them, so a seed replays exactly.
 * Pure: no clock and no Math.random; the only state is the seed.
 *
 * mulberry32 is the generator for simulation, noise and initial weights; the report's episode
 * bootstrap draws from xoshiro128** ({@link Xoshiro128}), whose published reference sequence its
 * tests check and whose resamples the recorded confidence intervals come from.
 */

/** The raw mulberry32 stream: uint32 words. */
function mulberry32Words(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Uniform in [0, 1) (can return exactly 0). */
export function mulberry32(seed: number): () => number {
  const next = mulberry32Words(seed);
  return () => next() / 4294967296;
}

/**
 * Uniform in the open interval (0, 1): the same words as {@link mulberry32}, centred in their
 * 2^-32 cell, so it never returns 0 and can feed a logarithm (e.g. {@link gaussian}).
 */
export function mulberry32Open(seed: number): () => number {
  const next = mulberry32Words(seed);
  return () => (next() + 0.5) / 4294967296;
}

/**
 * Box–Muller: one standard normal variate from two uniforms; `u1` must lie in (0, 1], since
 * log(0) is -Infinity.
 */
export function boxMuller(u1: number, u2: number): number {
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** One standard normal variate from two draws of `uniform`, which must not return 0: use {@link mulberry32Open}. */
export function gaussian(uniform: () => number): number {
  return boxMuller(uniform(), uniform());
}

/** Uniform in [-half, half] from a uniform [0, 1) stream. */
export function symmetric(uniform: () => number, half: number): number {
  return (uniform() * 2 - 1) * half;
}

/**
 * xoshiro128** (Blackman & Vigna) seeded through splitmix32, for bootstraps. Deterministic across
 * runs and platforms.
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
