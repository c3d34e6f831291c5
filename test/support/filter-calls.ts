/** Counting the calls of a rig's own chunk filter: with a filter worker it must never run on the control thread. */
import type { ChunkFilter } from '../../src/gate/cbf-types.js';
import type { BarrierModel } from '../../src/runtime/rig.js';

/** Wraps the barrier model's filter in place; `calls` counts every call from then on. */
export function countFilterCalls(barrier: BarrierModel): { calls: number } {
  if (barrier.kind !== 'cbf') throw new Error('no chunk filter');
  const filter = barrier.filter as ChunkFilter;
  const counter = { calls: 0 };
  const original = filter.filter.bind(filter);
  filter.filter = (...a: Parameters<ChunkFilter['filter']>) => (counter.calls++, original(...a));
  return counter;
}
