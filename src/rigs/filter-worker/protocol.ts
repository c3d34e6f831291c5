/**
 * Messages between the control thread and the chunk filter worker (issue 14 item 3): the worker is
 * started with a filter recipe (plain data) and builds the same filter and warning band the rig
 * builds; then one job at a time goes in and one answer comes out. Typed arrays are transferred.
 */
import type { FilterJob, FilterStage } from '../../runtime/chunk-filter-service.js';
import type { So101FilterRecipe } from '../so101.js';
import type { FrankaFilterRecipe } from '../franka.js';

/** What a filter worker can be built from (one recipe per platform whose rig filters off-thread). */
export type FilterRecipe = So101FilterRecipe | FrankaFilterRecipe;

export type ToFilterWorker = { readonly type: 'job'; readonly job: FilterJob };

export type FromFilterWorker =
  /** `priority`: the nice value the worker thread runs at, or why it is unchanged. */
  | { readonly type: 'ready'; readonly priority: string }
  | { readonly type: 'start-failed'; readonly error: string }
  /** `filterMs`: filter and band time measured in the worker. */
  | { readonly type: 'answer'; readonly seq: number; readonly stage: FilterStage; readonly filterMs: number };

/**
 * Why a message from the worker is not a well-formed answer to job `seq` of `values` targets, or
 * null when it is: the control thread never acts on a message it cannot read.
 */
export function answerProblem(m: unknown, seq: number, values: number): string | null {
  if (typeof m !== 'object' || m === null) return 'not an object';
  const a = m as Partial<Extract<FromFilterWorker, { type: 'answer' }>>;
  if (a.type !== 'answer') return `type '${String(a.type)}', expected 'answer'`;
  if (a.seq !== seq) return `answer to job ${String(a.seq)}, expected ${seq}`;
  if (typeof a.filterMs !== 'number') return 'filterMs is not a number';
  const st = a.stage as Partial<FilterStage> | undefined;
  if (!st || (st.kind !== 'done' && st.kind !== 'threw')) return 'stage is neither done nor threw';
  if (st.kind === 'threw')
    return typeof (st as { detail?: unknown }).detail === 'string' ? null : 'threw without a detail';
  const d = st as Partial<Extract<FilterStage, { kind: 'done' }>>;
  const cbf = d.cbf;
  if (!cbf || typeof cbf.status !== 'string' || !(cbf.targets instanceof Float64Array)) return 'cbf outcome malformed';
  const passes = cbf.status === 'unchanged' || cbf.status === 'filtered';
  if (passes && cbf.targets.length !== values) return `cbf targets: ${cbf.targets.length} values, expected ${values}`;
  if (d.band !== undefined && (!(d.band.targets instanceof Float64Array) || d.band.targets.length !== values))
    return 'band targets malformed';
  return null;
}
