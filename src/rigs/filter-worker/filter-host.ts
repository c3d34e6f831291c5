/**
 * The chunk filter worker thread (issue 14 item 3): builds the rig's chunk filter and warning band
 * from the recipe it was started with, then filters one job at a time (ChunkFilterRunner, the same
 * code the inline service runs) and posts the answer with the time it took. A job it cannot read
 * ends the thread (an uncaught throw): the control thread treats that as any crash — a typed fault,
 * the gate holding, the worker started again.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { ChunkFilterRunner, runFilterStage, type FilterStage } from '../../runtime/chunk-filter-service.js';
import { so101ChunkFilter } from '../so101.js';
import { frankaChunkFilter } from '../franka.js';
import type { FilterRecipe, FromFilterWorker, ToFilterWorker } from './protocol.js';
import { niceThisThread } from '../../platform/thread-priority.js';

const port = parentPort;
if (!port) throw new Error('the chunk filter host runs in a worker thread');
const post = (m: FromFilterWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

function build(recipe: FilterRecipe): ChunkFilterRunner {
  switch (recipe.platform) {
    case 'so101': {
      const b = so101ChunkFilter(recipe);
      const band = b.band && b.band.clauses.length > 0 ? b.band.stage.band : undefined;
      return new ChunkFilterRunner({ filter: b.filter, tracked: b.tracked, ...(band ? { band } : {}) });
    }
    case 'fr3':
    case 'panda': {
      const b = frankaChunkFilter(recipe);
      const band = b.band && b.band.clauses.length > 0 ? b.band.stage.band : undefined;
      return new ChunkFilterRunner({
        filter: b.filter,
        tracked: b.tracked,
        grip: b.setGrip,
        ...(band ? { band } : {}),
      });
    }
  }
}

/** The outcomes own the filter's buffers: copied before they leave (and transferred). */
function detach(stage: FilterStage): { stage: FilterStage; transfer: ArrayBuffer[] } {
  if (stage.kind === 'threw') return { stage, transfer: [] };
  const cbf = { ...stage.cbf, targets: stage.cbf.targets.slice() };
  const band = stage.band ? { ...stage.band, targets: stage.band.targets.slice() } : undefined;
  return {
    stage: { kind: 'done', cbf, band },
    transfer: [cbf.targets.buffer as ArrayBuffer, ...(band ? [band.targets.buffer as ArrayBuffer] : [])],
  };
}

/**
 * Compile the filter's code before the first chunk (a cold first solve took over 0.5 s on the
 * loaded test machine): a throwaway filter from the same recipe (the one that runs keeps no trace
 * of it) filters chunks from mid-range sweeping every joint to its upper and to its lower limit.
 */
function warmUp(recipe: FilterRecipe): void {
  const b = recipe.platform === 'so101' ? so101ChunkFilter(recipe) : frankaChunkFilter(recipe);
  for (const g of b.tracked) g.spheres.set([100, 100, 100, 0.01]);
  const band = b.band && b.band.clauses.length > 0 ? b.band.stage.band : undefined;
  const { qmin, qmax } = b.recheck;
  const n = qmin.length;
  const mid = Float64Array.from(qmin, (l, j) => (l + qmax[j]!) / 2);
  const rows = 20;
  for (const end of [qmax, qmin, qmax]) {
    const targets = new Float64Array(rows * n);
    for (let k = 0; k < rows; k++)
      for (let j = 0; j < n; j++) targets[k * n + j] = mid[j]! + ((end[j]! - mid[j]!) * 0.3 * (k + 1)) / rows;
    runFilterStage(b.filter, band, { targets, horizon: rows, joints: n, dt: 0.05 }, mid, WARM_BAND, undefined);
  }
}
const WARM_BAND = { gripping: false, heldHeight: Number.NaN, supported: false };

// Below the control thread (and the network worker, which carries the e-stop) when the cores are short.
const priority = niceThisThread((workerData as { nice: number }).nice);

let runner: ChunkFilterRunner;
try {
  const recipe = (workerData as { recipe: FilterRecipe }).recipe;
  warmUp(recipe);
  runner = build(recipe);
} catch (e) {
  post({ type: 'start-failed', error: e instanceof Error ? e.message : String(e) });
  throw e;
}

port.on('message', (m: ToFilterWorker) => {
  const t0 = performance.now();
  const stage = runner.run(m.job);
  const filterMs = performance.now() - t0;
  const { stage: out, transfer } = detach(stage);
  post({ type: 'answer', seq: m.job.seq, stage: out, filterMs }, transfer);
});
post({
  type: 'ready',
  priority: priority.ok
    ? `chunk filter worker thread at nice ${priority.nice}`
    : `chunk filter worker priority unchanged: ${priority.reason}`,
});
