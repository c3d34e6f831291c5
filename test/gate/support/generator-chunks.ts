/**
 * The chunks ../shared/qp/gen-chunk-qp.mjs proposes for the toy SO-101-like arm (H = 50, 6 joints,
 * 2 pairs, a 20-chunk sequence, seed 1), the generator's joint limits, and an independent re-check
 * of a chunk on the toy barrier's own pair distances — shared by the SQP-round tests.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { sharedDir } from '../../support/paths.js';
import type { ToyBarrier } from './toy-so101.js';

export const GEN_H = 50;
export const GEN_JOINTS = 6;

export interface GeneratorChunk {
  readonly unom: number[];
  readonly q0: number[];
  readonly meta: { readonly cycle: number };
}

/** The first `count` chunks of the generator's sequence. */
export function generatorChunks(count: number): GeneratorChunk[] {
  return (
    JSON.parse(
      execFileSync(
        process.execPath,
        [join(sharedDir, 'qp/gen-chunk-qp.mjs'), '--H', '50', '--n', '6', '--pairs', '2', '--seq', '20', '--seed', '1'],
        { encoding: 'utf8', maxBuffer: 1 << 28 },
      ),
    ) as { problems: GeneratorChunk[] }
  ).problems.slice(0, count);
}

export const GEN_QMAX = [1.9, 1.75, 1.6, 1.65, 2.8, 1.0];
export const GEN_QMIN = GEN_QMAX.map((v, j) => (j === 5 ? -0.1 : -v));

/**
 * Shortfall of h(u_k) ≥ decay·h(u_{k−1}) over steps and pairs (u_{−1} = q0), and min h, of chunk
 * `u` (GEN_H rows of GEN_JOINTS), from the toy barrier's pair distances.
 */
export function toyRecheck(
  bar: ToyBarrier,
  q0: number[],
  u: Float64Array,
  decay: number,
): { shortfall: number; minH: number } {
  const n = GEN_JOINTS;
  let shortfall = 0;
  let minH = Infinity;
  for (let p = 0; p < bar.pairs; p++) {
    let prev = bar.pair(q0, p);
    for (let k = 0; k < GEN_H; k++) {
      const h = bar.pair(u.subarray(k * n, (k + 1) * n), p);
      shortfall = Math.max(shortfall, decay * prev - h);
      minH = Math.min(minH, h);
      prev = h;
    }
  }
  return { shortfall, minH };
}
