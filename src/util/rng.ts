/**
 * Seeded PRNG (mulberry32): the project's one implementation, so a seed replays exactly.
 * Pure: no clock and no Math.random; the only state is the seed.
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
