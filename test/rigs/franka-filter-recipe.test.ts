/**
 * Issue 14 item 3: the Franka's chunk filter from its plain-data recipe (FrankaFilterRecipe), in a
 * real worker thread and inline, gives exactly the chunks of a fresh filter from the same recipe run
 * directly on this thread, job for job — with the grip each job carries (held, the close row, or none:
 * counted as held) deciding the held-tilt bound as it does on the control thread.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { frankaChunkFilter, frankaCloseRow, type FrankaFilterRecipe } from '../../src/rigs/franka.js';
import { WorkerChunkFilterService } from '../../src/rigs/filter-worker/worker-service.js';
import {
  ChunkFilterRunner,
  InlineChunkFilterService,
  runFilterStage,
  type ChunkFilterService,
  type FilterAnswer,
  type FilterJob,
  type FilterStage,
} from '../../src/runtime/chunk-filter-service.js';
import { systemTimers } from '../../src/platform/system-clock.js';
import { frankaTestConfig } from '../nodes/support/franka-config.js';
import { frankaRig } from '../nodes/support/franka-rig.js';
import { FR3_READY } from '../nodes/support/franka-world.js';

/** The recipe the Franka node builds in gate mode for the cup task (held-tilt bound on, table at 0). */
const RECIPE: FrankaFilterRecipe = (() => {
  let recipe: FrankaFilterRecipe | undefined;
  frankaRig(frankaTestConfig({ task: 'sim-pick-cup-into-box' }), () => ({
    filterService: (r) => {
      recipe = r;
      const b = frankaChunkFilter(r);
      return new InlineChunkFilterService(new ChunkFilterRunner({ filter: b.filter, grip: b.setGrip }));
    },
  }));
  if (!recipe) throw new Error('the node built no recipe');
  return recipe;
})();

const ROWS = 20;
function ramp(from: readonly number[], to: readonly number[], startRow = 0): Float64Array {
  const t = new Float64Array(ROWS * 7);
  for (let k = 0; k < ROWS; k++) {
    const s = k < startRow ? 0 : (k - startRow + 1) / (ROWS - startRow);
    for (let j = 0; j < 7; j++) t[k * 7 + j] = from[j]! + s * (to[j]! - from[j]!);
  }
  return t;
}
const TILTED = FR3_READY.map((q, j) => (j === 5 ? q + 0.6 : q));
/** Shoulder forward and wrist flexed: the nominal end pose puts the hand below the table plane. */
const THROUGH_TABLE = [0, 0.8, 0, -2.356, 0, 2.5, 0.785];

function jobs(): FilterJob[] {
  const base = {
    horizon: ROWS,
    joints: 7,
    dt: 0.05,
    q0: Float64Array.from(FR3_READY),
    stateTime: 0,
    spheres: new Float64Array(0),
    band: null,
    previousCommitted: true,
  };
  return [
    { ...base, seq: 1, targets: ramp(FR3_READY, TILTED), grip: { held: false, closeRow: -1 } },
    { ...base, seq: 2, targets: ramp(FR3_READY, TILTED), grip: { held: true, closeRow: -1 } },
    { ...base, seq: 3, targets: ramp(FR3_READY, TILTED, 10), grip: { held: false, closeRow: 10 } },
    { ...base, seq: 4, targets: ramp(FR3_READY, TILTED) }, // no grip: unsure, counted as held
    { ...base, seq: 5, targets: ramp(FR3_READY, THROUGH_TABLE), grip: { held: false, closeRow: -1 } },
  ];
}

/** The same jobs through a fresh filter from the recipe, run directly on this thread. */
function reference(js: FilterJob[]): FilterStage[] {
  const b = frankaChunkFilter(RECIPE);
  return js.map((j) => {
    b.setGrip(j.grip);
    const s = runFilterStage(b.filter, undefined, j, j.q0, j.band, undefined);
    return s.kind === 'threw' ? s : { kind: 'done', cbf: { ...s.cbf, targets: s.cbf.targets.slice() }, band: s.band };
  });
}

const plain = (s: FilterStage) =>
  s.kind === 'threw' ? s : { status: s.cbf.status, targets: Array.from(s.cbf.targets), minH: s.cbf.minH };

const opened: ChunkFilterService[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

const services: [string, () => Promise<ChunkFilterService>][] = [
  [
    'inline',
    async () => {
      const b = frankaChunkFilter(RECIPE);
      return new InlineChunkFilterService(new ChunkFilterRunner({ filter: b.filter, grip: b.setGrip }));
    },
  ],
  [
    'worker',
    async () => {
      const w = new WorkerChunkFilterService({ recipe: RECIPE, timers: systemTimers, timeoutS: 30 });
      await w.start();
      return w;
    },
  ],
];

describe.each(services)('the Franka filter recipe: %s', (_name, make) => {
  it('gives exactly the chunks of the filter run directly, the grip of each job deciding the tilt bound', async () => {
    const service = await make();
    opened.push(service);
    const js = jobs();
    const want = reference(js);
    const got: ReturnType<typeof plain>[] = [];
    for (const j of js) {
      const a = await new Promise<FilterAnswer>((resolve) => service.filter(j, resolve));
      if (a.kind !== 'filtered') throw new Error(`job ${j.seq}: ${JSON.stringify(a)}`);
      got.push(plain(a.stage)); // copied now: an inline filter reuses its buffers for the next job
    }
    expect(got).toEqual(want.map(plain));
    const statuses = got.map((s) => ('status' in s ? s.status : 'threw'));
    // open hand: the pitch passes; held, closing at row 10, or unsure: bent; through the table: bent or refused
    expect(statuses.slice(0, 4)).toEqual(['unchanged', 'filtered', 'filtered', 'filtered']);
    expect(statuses[4]).not.toBe('unchanged');
    // the close at row 10: rows before it are the nominal's
    const split = got[2]!;
    if (!('targets' in split)) throw new Error('threw');
    expect(split.targets.slice(0, 10 * 7)).toEqual(Array.from(js[2]!.targets.subarray(0, 10 * 7)));
  }, 60_000);
});

describe('frankaCloseRow: where a trajectory commands the hand to close', () => {
  const w = (...v: number[]) => Float64Array.from(v);
  it('the first point commanding a width more than the tolerance below the present one', () => {
    // present 8 cm (open), tolerance 1 mm: 7.95 cm is no close, 7.8 cm is
    expect(frankaCloseRow(w(0.08, 0.0795, 0.078, 0), 0.08, 0.075, 0.001)).toBe(2);
    // holding a 4.5 cm cup and commanded shut all along: closing from the first point
    expect(frankaCloseRow(w(0, 0, 0), 0.045, 0.075, 0.001)).toBe(0);
    // opening, or standing at the present width: no close
    expect(frankaCloseRow(w(0.05, 0.06, 0.08), 0.045, 0.075, 0.001)).toBe(-1);
    expect(frankaCloseRow(w(0.0455, 0.0455), 0.045, 0.075, 0.001)).toBe(-1);
  });
  it('no gripper command: none; present width unknown: measured from open; a NaN command counts as a close', () => {
    expect(frankaCloseRow(undefined, 0.08, 0.075, 0.001)).toBe(-1);
    expect(frankaCloseRow(w(0.08, 0.07), NaN, 0.075, 0.001)).toBe(1);
    expect(frankaCloseRow(w(0.08, NaN), 0.08, 0.075, 0.001)).toBe(1);
  });
});
