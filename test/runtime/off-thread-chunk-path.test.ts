/**
 * Issue 14 item 3: the SO-101 chunk path with the filter in a real worker thread
 * (WorkerChunkFilterService, built from the rig's recipe) and the exact re-check on the control
 * thread (OffThreadChunkPath). Whatever goes stale while a chunk is filtered — the arm moves, a
 * tracked obstacle moves onto the chunk's path, the gate holds and is released, a newer chunk
 * arrives — the answer is not committed as it was: it is filtered again from a fresh snapshot, or
 * rejected, and the arm receives only chunks that pass the re-check against where things are now.
 * A worker that dies, crashes on a job or does not answer in time is a typed fault: the gate holds,
 * a release is refused while the worker is down, and accepted once it runs again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import { so101Rig, type So101RigOptions } from '../../src/rigs/so101.js';
import { WorkerChunkFilterService } from '../../src/rigs/filter-worker/worker-service.js';
import { Session } from '../../src/runtime/session.js';
import type { ChunkFilterService, FilterAnswer, FilterJob } from '../../src/runtime/chunk-filter-service.js';
import { OffThreadChunkPath } from '../../src/runtime/off-thread-chunk-path.js';
import type { ExecutedChunk, GateChunk } from '../../src/gate/index.js';
import { ForwardKinematics, SO101_DESCRIPTION, SO101_FRAMES } from '../../src/kinematics/index.js';
import { systemTimers } from '../../src/platform/system-clock.js';
import { ManualClock } from '../../src/util/clock.js';
import { SIGNALS, type SignalFrame } from '../../src/schema/signals.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { SO101_FIXTURE_CALIBRATION, SO101_FIXTURE_SPEC, SO101_FIXTURE_TASK } from './support/so101-fixture.js';

const TASK = SO101_FIXTURE_TASK;
const OPEN = 1.5;
const ROWS = 20;
const DT = 0.05;
/** The rig's default speed bound (rad/s) × DT: how far one row may move. */
const STEP = 2 * DT;
const REACH_FROM = [0, -0.5, 0.5, 0.3, 0, OPEN];
const REACH_TO = [0.6, -0.2, 0.3, 0.3, 0, OPEN];

/** Every signal benign (0) at every poll. */
class QuietArm extends KinematicArm {
  poll(frame: SignalFrame, now: number): void {
    SIGNALS.forEach((_, i) => frame.set(i, 0, now, 'test'));
  }
}

function ramp(q0: readonly number[], q1: readonly number[]): Float64Array {
  const t = new Float64Array(ROWS * 6);
  for (let k = 0; k < ROWS; k++)
    for (let j = 0; j < 6; j++) t[k * 6 + j] = q0[j]! + ((q1[j]! - q0[j]!) * (k + 1)) / ROWS;
  return t;
}

function toolAt(q: ArrayLike<number>): [number, number, number] {
  const fk = new ForwardKinematics(SO101_DESCRIPTION.chain);
  const o = fk.offset(SO101_FRAMES.tcp);
  fk.compute(q);
  return [fk.frames[o + 9]!, fk.frames[o + 10]!, fk.frames[o + 11]!];
}

/** The real worker service, with `onJob` run on this thread right after each snapshot is handed over. */
class ObservedService implements ChunkFilterService {
  readonly mode = 'worker';
  jobs: FilterJob[] = [];
  onJob: ((job: FilterJob) => void) | undefined;
  /** What the worker is sent instead of the control thread's job (a worker that did not get all of it). */
  rewrite: ((job: FilterJob) => FilterJob) | undefined;
  constructor(readonly inner: WorkerChunkFilterService) {}
  get fault() {
    return this.inner.fault;
  }
  filter(job: FilterJob, done: (a: FilterAnswer) => void): void {
    this.jobs.push(job);
    this.inner.filter(this.rewrite ? this.rewrite(job) : job, done);
    this.onJob?.(job);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** A cup tracked at `cup.at` (stamped now), the arm at REACH_FROM, the session stepped once at t = 1. */
async function setup(o: { timeoutS?: number; rig?: Partial<So101RigOptions>; from?: readonly number[] } = {}) {
  const clock = new ManualClock(1);
  const arm = new QuietArm(o.from ?? REACH_FROM, 1);
  const cup = { at: [5, 5, 5] };
  let service!: ObservedService;
  const { rig, cbf } = so101Rig({
    spec: SO101_FIXTURE_SPEC,
    calibration: SO101_FIXTURE_CALIBRATION,
    task: TASK,
    arm,
    clock,
    tracked: {
      bodies: [{ body: 'cup', radius: 0.03 }],
      source: {
        positionOf: (_b, out) => (out.set(cup.at), clock.now()),
      },
      trackingInBase: [0, 0, 0, 0, 0, 0],
      maxAge: 0.1,
    },
    filterService: (recipe) =>
      (service = new ObservedService(
        new WorkerChunkFilterService({ recipe, timers: systemTimers, timeoutS: o.timeoutS ?? 30 }),
      )),
    ...o.rig,
  });
  await service.inner.start();
  cleanups.push(() => service.close());
  const session = new Session({ rig, gating: true, task: TASK, log: () => undefined });
  session.pipeline.step(1);
  expect(session.gate.state).not.toBe('hold');
  const path = session.chunks as OffThreadChunkPath;
  expect(path).toBeInstanceOf(OffThreadChunkPath);
  let n = 0;
  const submit = (targets: Float64Array): Promise<ExecutedChunk> => {
    // stamps on the policy's clock, 1 ms apart (the screen refuses a stamp not after the last)
    const chunk: GateChunk = {
      id: `c${++n}`,
      stamp: clock.now() + n * 1e-3,
      horizon: ROWS,
      joints: 6,
      dt: DT,
      targets,
    };
    return new Promise((resolve) => session.submitChunkAsync(chunk, clock.now(), (r) => resolve(r)));
  };
  return { clock, arm, cup, service, session, path, submit, cbf };
}

/** |row 0 − q| and |row k − row k−1| per joint all within the speed bound. */
function withinMotionBound(targets: Float64Array, q: ArrayLike<number>): boolean {
  for (let k = 0; k < ROWS; k++)
    for (let j = 0; j < 6; j++) {
      const prev = k === 0 ? q[j]! : targets[(k - 1) * 6 + j]!;
      if (Math.abs(targets[k * 6 + j]! - prev) > STEP + 1e-9) return false;
    }
  return true;
}

describe('the SO-101 chunk path with the filter in a worker thread', () => {
  it('commits what the worker filtered once the re-check passes; the filter never runs on the control thread', async () => {
    const { arm, submit, path, session } = await setup();
    const controlThreadFilter = (session as unknown as { o: { rig: { barrier: { filter: { filter: unknown } } } } }).o
      .rig.barrier.filter;
    let calls = 0;
    const original = controlThreadFilter.filter;
    controlThreadFilter.filter = (...a: unknown[]) => (calls++, (original as (...x: unknown[]) => unknown)(...a));
    path.warmUp(); // as `run` does at start-up: decides nothing, sends nothing
    expect(arm.executed).toHaveLength(0);
    const r = await submit(ramp(REACH_FROM, REACH_TO));
    expect(r.verdict).toMatch(/executed|filtered/);
    expect(arm.executed).toHaveLength(1);
    expect(Array.from(arm.executed[0]!.chunk.targets)).toEqual(Array.from(r.targets!));
    expect(calls).toBe(0);
    expect(path.stats).toMatchObject({ submitted: 1, committed: 1, refiltered: 0 });
  }, 30_000);

  it('the arm moved while the chunk was filtered: filtered again from where it is, never sent from the stale start', async () => {
    const { arm, submit, path, service } = await setup();
    // Right after the snapshot the arm is 0.2 rad further on joint 0 (twice the one-row bound).
    service.onJob = () => {
      service.onJob = undefined;
      arm.q[0] = 0.2;
    };
    const r = await submit(ramp(REACH_FROM, REACH_TO));
    expect(path.stats.refiltered).toBe(1);
    expect(service.jobs).toHaveLength(2);
    expect(service.jobs[1]!.q0[0]).toBe(0.2);
    expect(r.verdict).toMatch(/executed|filtered/);
    expect(arm.executed).toHaveLength(1);
    // the chunk the arm got starts within one row's motion of where the arm was when it was sent
    expect(withinMotionBound(arm.executed[0]!.chunk.targets, arm.executed[0]!.from)).toBe(true);
    // the first answer (from the stale start) would not have been
    expect(Math.abs(ramp(REACH_FROM, REACH_TO)[0]! - 0.2)).toBeGreaterThan(STEP);
  }, 30_000);

  it('the arm moves every time a snapshot is taken: rejected stale-snapshot after one refilter, nothing sent to the arm', async () => {
    const { arm, submit, path, service } = await setup();
    service.onJob = () => void (arm.q[0] = arm.q[0]! + 0.2);
    const r = await submit(ramp(REACH_FROM, REACH_TO));
    expect(r).toMatchObject({ verdict: 'rejected', code: 'stale-snapshot' });
    expect(r.reason).toMatch(/the arm moved while it was filtered/);
    expect(arm.executed).toHaveLength(0);
    expect(path.stats).toMatchObject({ committed: 0, refiltered: 1, stale: 1 });
  }, 30_000);

  it('a tracked obstacle moved onto the path while it was filtered: the chunk that reaches the arm keeps clear of where it is now', async () => {
    const { arm, submit, cup, service, path } = await setup();
    const nominal = ramp(REACH_FROM, REACH_TO);
    const mid = toolAt(nominal.subarray(10 * 6, 11 * 6));
    service.onJob = () => {
      service.onJob = undefined;
      cup.at = mid; // the tool's position at row 10 of the nominal chunk
    };
    const r = await submit(nominal);
    expect(service.jobs[0]!.spheres[0]).toBe(5); // filtered first with the cup far away
    expect(path.stats.refiltered).toBe(1);
    expect(Array.from(service.jobs[1]!.spheres.subarray(0, 3))).toEqual(mid);
    // filtered around the cup where it is now (the nominal chunk drives the tool through its centre)
    expect(r.verdict).toBe('filtered');
    const sent = arm.executed[0]!.chunk.targets;
    for (let k = 0; k < ROWS; k++) {
      const p = toolAt(sent.subarray(k * 6, k * 6 + 6));
      expect(Math.hypot(p[0] - mid[0], p[1] - mid[1], p[2] - mid[2])).toBeGreaterThan(0.03);
    }
  }, 30_000);

  it('the gate held and was released while it was filtered: rejected stale-snapshot, not executed', async () => {
    const { arm, submit, session, service, clock } = await setup();
    service.onJob = () => {
      service.onJob = undefined;
      const t = clock.now();
      session.pipeline.eStop(t, 'test');
      expect(session.gate.resetEStop(t, { by: 'op', pressedBy: 'test', authorised: true }).ok).toBe(true);
      expect(session.release(t, { by: 'op', authorised: true }).ok).toBe(true);
    };
    const r = await submit(ramp(REACH_FROM, REACH_TO));
    expect(session.gate.state).not.toBe('hold');
    expect(r).toMatchObject({ verdict: 'rejected', code: 'stale-snapshot' });
    expect(r.reason).toMatch(/the gate held while it was filtered/);
    expect(arm.executed).toHaveLength(0);
  }, 30_000);

  it('a newer chunk arrived while one was filtered: the older is answered superseded, the newer filtered and committed', async () => {
    const { arm, submit, path, clock, session } = await setup();
    const first = submit(ramp(REACH_FROM, REACH_TO));
    const second = submit(
      ramp(
        REACH_FROM,
        REACH_TO.map((x, j) => (j === 0 ? 0.3 : x)),
      ),
    );
    const a = await first;
    // the newer one starts at a control step once the pacing interval has passed
    let settled = false;
    void second.then(() => (settled = true));
    while (!settled) {
      clock.advance(0.01);
      arm.tick(clock.now());
      session.pipeline.step(clock.now());
      await new Promise((r) => setTimeout(r, 10));
    }
    const b = await second;
    expect(a).toMatchObject({ id: 'c1', verdict: 'rejected', code: 'superseded' });
    expect(b.id).toBe('c2');
    expect(b.verdict).toMatch(/executed|filtered/);
    expect(arm.executed.map((e) => e.chunk.id)).toEqual(['c2']);
    expect(path.stats).toMatchObject({ submitted: 2, superseded: 1, committed: 1 });
  }, 30_000);
});

describe('pacing under a flood', () => {
  it('a chunk that superseded the one being filtered starts at the first control step 20 ms after the last filter began', async () => {
    const { arm, submit, path, service, clock, session } = await setup();
    const first = submit(ramp(REACH_FROM, REACH_TO));
    const waiting = [2, 3, 4].map((i) =>
      submit(
        ramp(
          REACH_FROM,
          REACH_TO.map((x, j) => (j === 0 ? 0.1 * i : x)),
        ),
      ),
    );
    expect((await first).code).toBe('superseded');
    expect((await waiting[0]!).code).toBe('superseded');
    expect((await waiting[1]!).code).toBe('superseded');
    // the newest waits: no filter began since the first (same clock time)
    expect(service.jobs).toHaveLength(1);
    const step = (dt: number) => {
      clock.advance(dt);
      arm.tick(clock.now());
      session.pipeline.step(clock.now());
    };
    step(0.01);
    expect(service.jobs).toHaveLength(1);
    step(0.01); // 20 ms after the first began
    expect(service.jobs).toHaveLength(2);
    const last = await waiting[2]!;
    expect(last.id).toBe('c4');
    expect(last.verdict).toMatch(/executed|filtered/);
    expect(arm.executed.map((e) => e.chunk.id)).toEqual(['c4']);
    expect(path.stats).toMatchObject({ submitted: 4, superseded: 3, committed: 1 });
  }, 30_000);
});

describe('filter worker faults', () => {
  /** Step the session at the manual clock (the arm's samples stamped then) until `pred`, for at most `seconds` of real time. */
  async function stepUntil(
    s: Awaited<ReturnType<typeof setup>>,
    pred: () => boolean,
    seconds: number,
    what: string,
  ): Promise<void> {
    const until = performance.now() + seconds * 1000;
    while (!pred()) {
      if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
      s.clock.advance(0.01);
      s.arm.tick(s.clock.now());
      s.session.pipeline.step(s.clock.now());
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it('a worker terminated mid-run holds with a typed fault while it is down; release only once it runs again', async () => {
    const s = await setup();
    const worker = (s.service.inner as unknown as { worker: Worker }).worker;
    const pending = s.submit(ramp(REACH_FROM, REACH_TO));
    await worker.terminate();
    const r = await pending;
    expect(r.verdict).toBe('held');
    expect(s.session.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'disconnect', source: 'chunk filter worker', detail: expect.stringMatching(/exited/) },
    });
    expect(s.arm.executed).toHaveLength(0);
    // While it is down the fault is raised every step: a release is refused however long it lasts.
    s.clock.advance(5);
    s.arm.tick(s.clock.now());
    s.session.pipeline.step(s.clock.now());
    if (s.service.fault) expect(s.session.release(s.clock.now(), { by: 'op', authorised: true }).ok).toBe(false);
    await stepUntil(
      s,
      () => s.service.inner.restarts === 1 && s.service.fault === null,
      10,
      'the worker running again',
    );
    // the quiet period after the last report, then an operator release arms, and chunks are filtered again
    await stepUntil(s, () => s.session.release(s.clock.now(), { by: 'op', authorised: true }).ok, 5, 'a release');
    const after = await s.submit(ramp(Array.from(s.arm.q), REACH_TO));
    expect(after.verdict).toMatch(/executed|filtered/);
  }, 30_000);

  it('a worker that dies while a newer chunk waits: the fault holds at once, with its cause, and the chunk in flight is answered held, not superseded', async () => {
    const s = await setup();
    const worker = (s.service.inner as unknown as { worker: Worker }).worker;
    const first = s.submit(ramp(REACH_FROM, REACH_TO));
    const second = s.submit(
      ramp(
        REACH_FROM,
        REACH_TO.map((x, j) => (j === 0 ? 0.3 : x)),
      ),
    );
    await worker.terminate();
    const a = await first;
    // no control step has run since the fault
    expect(a).toMatchObject({ id: 'c1', verdict: 'held' });
    expect(s.session.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'disconnect', source: 'chunk filter worker', detail: expect.stringMatching(/exited/) },
    });
    expect(s.path.stats).toMatchObject({ faults: 1, held: 1, superseded: 0 });
    // the waiting chunk is decided at a control step: held, nothing reaches the arm
    let b: ExecutedChunk | undefined;
    void second.then((r) => (b = r));
    await stepUntil(s, () => b !== undefined, 10, 'the waiting chunk');
    expect(b).toMatchObject({ id: 'c2', verdict: 'held' });
    expect(s.arm.executed).toHaveLength(0);
  }, 30_000);

  /**
   * The arm stands at P (wrist_flex 0.5) and closes the jaw 0.1 rad a row: the grasp (the first row
   * commanded closed, row 7) is at P, whose tool direction that is vertical there is the held
   * object's axis. Then the held object is tilted by half the tool's limit L (wrist_flex +L/2), the
   * worker is killed and started again, and the next chunk asks for another L (1.5 L from the
   * grasp in all). Returns its answer, the limit and the worst tilt from the grasp's vertical over
   * the rows sent (computed here from the forward kinematics, independent of the barrier's faces).
   */
  async function tiltAfterRestart(o: { rewrite?: (job: FilterJob) => FilterJob } = {}) {
    const P = [0, -1, 0.8, 0.5, 0, OPEN];
    const s = await setup({ from: P });
    const limit = (s.cbf.heldTiltDeg! * Math.PI) / 180;
    const held = (dWrist: number) => [0, -1, 0.8, 0.5 + dWrist, 0, 0.2];
    const play = () => {
      for (let k = 0; k < ROWS + 2; k++) {
        s.clock.advance(DT);
        s.arm.tick(s.clock.now());
        s.session.pipeline.step(s.clock.now());
      }
    };
    const grasp = new Float64Array(ROWS * 6);
    for (let k = 0; k < ROWS; k++) grasp.set([...P.slice(0, 5), Math.max(0.2, OPEN - 0.1 * (k + 1))], k * 6);
    expect((await s.submit(grasp)).verdict).toMatch(/executed|filtered/);
    play();
    expect((await s.submit(ramp(held(0), held(limit / 2)))).verdict).toBe('executed');
    play();
    expect(s.arm.q[3]).toBeCloseTo(0.5 + limit / 2, 12);

    const worker = (s.service.inner as unknown as { worker: Worker }).worker;
    await worker.terminate();
    await stepUntil(
      s,
      () => s.service.inner.restarts === 1 && s.service.fault === null,
      10,
      'the worker running again',
    );
    await stepUntil(s, () => s.session.release(s.clock.now(), { by: 'op', authorised: true }).ok, 5, 'a release');

    s.service.rewrite = o.rewrite;
    const r = await s.submit(ramp(held(limit / 2), held(1.5 * limit)));
    const fk = new ForwardKinematics(SO101_DESCRIPTION.chain);
    const f = fk.offset(SO101_FRAMES.tcp);
    fk.compute([...P.slice(0, 5), OPEN - 0.7]);
    const axis = [fk.frames[f + 6]!, fk.frames[f + 7]!, fk.frames[f + 8]!]; // Rᵀ·ẑ at the grasp
    let worst = 0;
    const sent = s.arm.executed.at(-1)!.chunk.targets;
    for (let k = 0; k < ROWS; k++) {
      fk.compute(sent.subarray(k * 6, k * 6 + 6));
      const up = fk.frames[f + 6]! * axis[0]! + fk.frames[f + 7]! * axis[1]! + fk.frames[f + 8]! * axis[2]!;
      worst = Math.max(worst, Math.acos(Math.min(1, up)));
    }
    return { s, r, limit, worst };
  }

  it("a worker killed while the arm holds an object keeps, once started again, the grasp's tilt reference — not the pose it restarted at", async () => {
    // From the grasp's reference the filter bends the chunk to within L; a worker that took the
    // present pose (already L/2 tilted) as the reference let the tool reach 1.18 L (before: the job
    // carried no reference).
    const { r, limit, worst } = await tiltAfterRestart();
    expect(r.verdict, r.reason).toBe('filtered');
    expect(worst).toBeLessThanOrEqual(limit + 1e-3);
    expect(worst).toBeGreaterThan(limit / 2); // it did move on, bent at the bound
  }, 60_000);

  it("a worker that bounds the tilt from the wrong reference (its jobs lose the grasp): the control thread's re-check holds (held-tilt)", async () => {
    // The control thread re-checks the tilt faces from the reference it committed, whatever the
    // worker used: the chunk bent only to L from the restart pose is refused, nothing new is sent.
    const { s, r, limit } = await tiltAfterRestart({ rewrite: (job) => ({ ...job, grasp: null }) });
    expect(r).toMatchObject({ verdict: 'held', code: 'unsafe-chunk' });
    expect(s.session.gate.holdCause).toMatchObject({
      kind: 'unsafe-chunk',
      detail: expect.stringMatching(/^re-check on the control thread failed: held-tilt: /),
    });
    expect(s.arm.executed).toHaveLength(2); // the grasp and the first tilt only
    expect(s.arm.q[3]).toBeCloseTo(0.5 + limit / 2, 12);
  }, 60_000);

  it('a job that crashes the worker thread (an uncaught throw inside it) is the same typed fault', async () => {
    const s = await setup();
    const bad = { seq: 99, targets: new Float64Array(6), horizon: 1, joints: 6, dt: DT } as unknown as FilterJob;
    const answer = await new Promise<FilterAnswer>((resolve) => s.service.inner.filter(bad, resolve));
    expect(answer).toMatchObject({
      kind: 'fault',
      seq: 99,
      fault: { kind: 'disconnect', source: 'chunk filter worker' },
    });
    expect(s.service.fault).not.toBeNull();
    // the next control step holds on it
    s.session.pipeline.step(s.clock.now());
    expect(s.session.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { source: 'chunk filter worker' } });
  }, 30_000);

  it('no answer within the timeout is a timeout fault that holds; the worker is stopped and started again', async () => {
    const s = await setup({ timeoutS: 0.2 });
    // A job far beyond what the screen lets through (3,000 rows, bent around a cup on its path):
    // a new QP of 18,000 variables, which the worker cannot answer within 0.2 s.
    const rows = 3000;
    const targets = new Float64Array(rows * 6);
    for (let k = 0; k < rows; k++)
      for (let j = 0; j < 6; j++)
        targets[k * 6 + j] = REACH_FROM[j]! + ((REACH_TO[j]! - REACH_FROM[j]!) * (k + 1)) / rows;
    const mid = toolAt(targets.subarray(1500 * 6, 1501 * 6));
    const job: FilterJob = {
      seq: 1,
      targets,
      horizon: rows,
      joints: 6,
      dt: DT,
      q0: Float64Array.from(REACH_FROM),
      stateTime: s.clock.now(),
      spheres: Float64Array.of(...mid, 0.03),
      band: null,
      previousCommitted: true,
    };
    const t0 = performance.now();
    const answer = await new Promise<FilterAnswer>((resolve) => s.service.inner.filter(job, resolve));
    expect(performance.now() - t0).toBeLessThan(5000); // answered by the timeout, not by the solve
    expect(answer).toMatchObject({
      kind: 'fault',
      seq: 1,
      fault: {
        kind: 'timeout',
        source: 'chunk filter worker',
        detail: expect.stringMatching(/no answer .* within 0.2 s/),
      },
    });
    // the next control step holds on it; chunks meanwhile are held, never sent
    s.session.pipeline.step(s.clock.now());
    expect(s.session.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'timeout' } });
    expect((await s.submit(ramp(REACH_FROM, REACH_TO))).verdict).toBe('held');
    expect(s.arm.executed).toHaveLength(0);
    await stepUntil(
      s,
      () => s.service.inner.restarts === 1 && s.service.fault === null,
      10,
      'the worker started again',
    );
  }, 30_000);
});
