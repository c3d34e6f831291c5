/** Seeded PRNG (mulberry32): the testbed's only source of randomness, so a seed replays exactly. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform in [-half, half]. */
export function symmetric(rng: () => number, half: number): number {
  return (rng() * 2 - 1) * half;
}
