/**
 * Issue 14 item 3: the ChunkFilterService contract, run against both implementations — the inline
 * service (filter on the calling thread) and the worker service (a real worker_threads worker built
 * from the rig's recipe). Both must give exactly the chunks the SO-101's filter gives when run
 * directly on this thread (a fresh filter from the same recipe, runFilterStage), job for job:
 * bent by the self pair, by the held-tilt bound, by a tracked sphere, passed unchanged, refused
 * as unsafe, refused for its shape, and slowed or held by the warning band. Then the
 * stateful part: a chunk the control thread did not commit is rolled back (its grasp does not
 * become the tilt reference).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { so101ChunkFilter, so101Rig, type So101FilterRecipe } from '../../src/rigs/so101.js';
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
import type { BandState } from '../../src/gate/warning-band.js';
import { ForwardKinematics, SO101_DESCRIPTION, SO101_FRAMES } from '../../src/kinematics/index.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { SO101_FIXTURE_CALIBRATION, SO101_FIXTURE_SPEC, SO101_FIXTURE_TASK } from './support/so101-fixture.js';

const TASK = SO101_FIXTURE_TASK;
const OPEN = 1.5;
const CLOSED = 0.2;
const ROWS = 20;

/** The recipe `run so101` builds for this arm and task, with one tracked body. */
const RECIPE: So101FilterRecipe = so101Rig({
  spec: SO101_FIXTURE_SPEC,
  calibration: SO101_FIXTURE_CALIBRATION,
  task: TASK,
  arm: Object.assign(new KinematicArm([0, 0, 0, 0, 0, 0]), { poll: () => undefined }),
  clock: { now: () => 0 },
  tracked: {
    bodies: [{ body: 'cup', radius: 0.03 }],
    source: { positionOf: () => NaN },
    trackingInBase: [0, 0, 0, 0, 0, 0],
    maxAge: 0.1,
  },
}).recipe;

function ramp(q0: readonly number[], q1: readonly number[], rows = ROWS): Float64Array {
  const t = new Float64Array(rows * 6);
  for (let k = 0; k < rows; k++)
    for (let j = 0; j < 6; j++) t[k * 6 + j] = q0[j]! + ((q1[j]! - q0[j]!) * (k + 1)) / rows;
  return t;
}

const FOLD_FROM = [0, -1.6, 0.8, 0.5, 0, OPEN];
const FOLD_TO = [0, -1.6, 1.2, 1.6, 0, OPEN];
const TILT_FROM = [0, -1, 0.8, 0.5, 0, CLOSED];
const TILT_TO = [0, -1, 0.8, 1.0, 0, CLOSED];
const REACH_FROM = [0, -0.5, 0.5, 0.3, 0, OPEN];
const REACH_TO = [0.6, -0.2, 0.3, 0.3, 0, OPEN];
/** Shoulder and wrist lowering the hand (held_height predicts the object below its band: held). */
const LOWER_FROM = [0, -0.5, 0.5, 0.3, 0, OPEN];
const LOWER_TO = [0, 0.5, 0.2, 0.8, 0, OPEN];
const FAR = Float64Array.of(5, 5, 5, 0.03);
const HOLDING: BandState = { gripping: true, heldHeight: 0.01, supported: false };

type Case = Omit<FilterJob, 'seq' | 'stateTime' | 'previousCommitted' | 'joints' | 'dt'> & { name: string };
const cases: Case[] = [
  {
    name: 'self-collision fold',
    targets: ramp(FOLD_FROM, FOLD_TO),
    horizon: ROWS,
    q0: Float64Array.from(FOLD_FROM),
    spheres: FAR,
    band: null,
  },
  {
    name: 'held tilt',
    targets: ramp(TILT_FROM, TILT_TO),
    horizon: ROWS,
    q0: Float64Array.from(TILT_FROM),
    spheres: FAR,
    band: null,
  },
  {
    name: 'open gripper, same motion',
    targets: ramp(
      TILT_FROM.map((x, j) => (j === 5 ? OPEN : x)),
      TILT_TO.map((x, j) => (j === 5 ? OPEN : x)),
    ),
    horizon: ROWS,
    q0: Float64Array.from(TILT_FROM.map((x, j) => (j === 5 ? OPEN : x))),
    spheres: FAR,
    band: null,
  },
  {
    name: 'reach far from the cup',
    targets: ramp(REACH_FROM, REACH_TO),
    horizon: ROWS,
    q0: Float64Array.from(REACH_FROM),
    spheres: FAR,
    band: null,
  },
  {
    name: 'lowering a held object (band)',
    targets: ramp(LOWER_FROM, LOWER_TO),
    horizon: ROWS,
    q0: Float64Array.from(LOWER_FROM),
    spheres: FAR,
    band: HOLDING,
  },
  {
    name: 'mis-sized chunk',
    targets: new Float64Array(7),
    horizon: ROWS,
    q0: Float64Array.from(REACH_FROM),
    spheres: FAR,
    band: null,
  },
];

/** The tool centre's position (m, base frame) at q (forward kinematics). */
function toolAt(q: ArrayLike<number>): [number, number, number] {
  const fk = new ForwardKinematics(SO101_DESCRIPTION.chain);
  const o = fk.offset(SO101_FRAMES.tcp);
  fk.compute(q);
  return [fk.frames[o + 9]!, fk.frames[o + 10]!, fk.frames[o + 11]!];
}

/** The cup 4 cm beside the tool's position at row 10 of the nominal reach. */
function cupOnThePath(): Float64Array {
  const [x, y, z] = toolAt(ramp(REACH_FROM, REACH_TO).subarray(10 * 6, 11 * 6));
  return Float64Array.of(x, y + 0.04, z, 0.03);
}

function jobs(): FilterJob[] {
  const list = cases.map((c, i) => ({ ...c, seq: i + 1, joints: 6, dt: 0.05, stateTime: 0, previousCommitted: true }));
  // the reach again, the cup now on its way; and a start inside the cup (unsafe)
  list.push({ ...list[3]!, name: 'reach toward the cup', seq: list.length + 1, spheres: cupOnThePath() });
  const inside = Float64Array.of(...toolAt(REACH_FROM), 0.03);
  list.push({ ...list[3]!, name: 'start inside the cup', seq: list.length + 1, spheres: inside });
  return list.map(({ name: _name, ...j }) => j as FilterJob);
}

/** The reference: a fresh filter from the recipe, run directly on this thread job after job. */
function reference(js: FilterJob[]): FilterStage[] {
  const b = so101ChunkFilter(RECIPE);
  const band = b.band && b.band.clauses.length > 0 ? b.band.stage.band : undefined;
  return js.map((j) => {
    b.tracked.forEach((g, k) => g.spheres.set(j.spheres.subarray(4 * k, 4 * k + 4)));
    const s = runFilterStage(b.filter, band, j, j.q0, j.band, undefined);
    // copy what the filter owns before the next job overwrites it
    return s.kind === 'threw'
      ? s
      : {
          kind: 'done',
          cbf: { ...s.cbf, targets: s.cbf.targets.slice() },
          band: s.band ? { ...s.band, targets: s.band.targets.slice() } : undefined,
        };
  });
}

function ask(service: ChunkFilterService, job: FilterJob): Promise<FilterAnswer> {
  return new Promise((resolve) => service.filter(job, resolve));
}

const plain = (s: FilterStage) =>
  s.kind === 'threw'
    ? s
    : {
        cbf: { ...s.cbf, targets: Array.from(s.cbf.targets) },
        band: s.band ? { ...s.band, targets: Array.from(s.band.targets) } : undefined,
      };

const services: [string, () => Promise<ChunkFilterService>][] = [
  [
    'inline',
    async () => {
      const b = so101ChunkFilter(RECIPE);
      const band = b.band && b.band.clauses.length > 0 ? b.band.stage.band : undefined;
      return new InlineChunkFilterService(
        new ChunkFilterRunner({ filter: b.filter, tracked: b.tracked, ...(band ? { band } : {}) }),
        () => performance.now(),
      );
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

const opened: ChunkFilterService[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

describe.each(services)('ChunkFilterService contract: %s', (_name, make) => {
  it('gives exactly the chunks of the filter run directly, job for job, each answered once with its seq', async () => {
    const service = await make();
    opened.push(service);
    const js = jobs();
    const want = reference(js);
    const statuses: string[] = [];
    for (let i = 0; i < js.length; i++) {
      const answers: FilterAnswer[] = [];
      await new Promise<void>((resolve) =>
        service.filter(js[i]!, (a) => {
          answers.push(a);
          resolve();
        }),
      );
      await new Promise((r) => setTimeout(r, 5)); // nothing answered twice
      expect(answers).toHaveLength(1);
      const a = answers[0]!;
      expect(a.seq).toBe(js[i]!.seq);
      if (a.kind !== 'filtered') throw new Error(`job ${i}: ${JSON.stringify(a)}`);
      expect(a.filterMs).toBeGreaterThanOrEqual(0);
      expect(plain(a.stage)).toEqual(plain(want[i]!));
      statuses.push(
        a.stage.kind === 'done' ? `${a.stage.cbf.status}${a.stage.band ? `+${a.stage.band.status}` : ''}` : 'threw',
      );
    }
    expect(service.fault).toBeNull();
    // the cases cover what they are named for
    expect(statuses).toContain('filtered'); // fold, tilt, cup
    expect(statuses).toContain('unchanged');
    expect(statuses).toContain('unsafe');
    expect(statuses).toContain('solver-failure');
    expect(statuses.some((s) => s.includes('+'))).toBe(true); // the band acted on one
  }, 60_000);

  it('rolls a stateful filter back when the previous chunk was not committed: its grasp is not the tilt reference', async () => {
    // A chunk that grasps (open → closed) with the wrist flexed: it sets the tilt reference there.
    const graspAt = [0, -1, 0.8, 1.0, 0, OPEN];
    const grasp = ramp(
      graspAt,
      graspAt.map((x, j) => (j === 5 ? CLOSED : x)),
    );
    // Then a chunk closed from its first row, from the wrist at 0.5 rad, flexing it to 1.0 rad.
    const carry = ramp(TILT_FROM, TILT_TO);
    const base = { horizon: ROWS, joints: 6, dt: 0.05, stateTime: 0, spheres: FAR, band: null };
    const graspJob: FilterJob = {
      ...base,
      seq: 1,
      targets: grasp,
      q0: Float64Array.from(graspAt),
      previousCommitted: true,
    };
    const carryJob = (previousCommitted: boolean): FilterJob => ({
      ...base,
      seq: 2,
      targets: carry,
      q0: Float64Array.from(TILT_FROM),
      previousCommitted,
    });
    // Reference: a fresh filter that never saw the grasp (reference taken at the carry's start).
    const fresh = reference([carryJob(true)])[0]!;
    const results: FilterAnswer[] = [];
    for (const committed of [false, true]) {
      const service = await make();
      opened.push(service);
      expect((await ask(service, graspJob)).kind).toBe('filtered');
      results.push(await ask(service, carryJob(committed)));
    }
    const [rolledBack, kept] = results;
    if (rolledBack!.kind !== 'filtered' || kept!.kind !== 'filtered') throw new Error('fault');
    expect(plain(rolledBack!.stage)).toEqual(plain(fresh));
    // the committed grasp's reference (taken at the flexed wrist) decides the carry differently
    expect(plain(kept!.stage)).not.toEqual(plain(fresh));
  }, 60_000);
});
