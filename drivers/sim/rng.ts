/** The testbed's only source of randomness is the seeded mulberry32 PRNG, so a seed replays exactly. */
export { mulberry32 } from '../../src/util/rng.js';

/** Uniform in [-half, half]. */
export function symmetric(rng: () => number, half: number): number {
  return (rng() * 2 - 1) * half;
}
