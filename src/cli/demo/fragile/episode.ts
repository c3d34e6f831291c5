/**
 * One fragile-obstacle episode (issue 15; seeds/001 Fig. A.8) in the MuJoCo testbed, on the
 * simulated arm's rig (src/rigs/sim.ts: the sim's signal source, actuators and joint state) driven
 * through the same Session as a live arm (src/runtime/session.ts). With `record`, the session records
 * the episode to `<dir>/<episodeId>.mcap` through its EpisodeManager (demo-session.ts, as the
 * default scenario's episodes) and labels it by the task predicate at the end.
 * The scripted policy proposes a chunk every 50 ticks; the session steps every tick; by mode:
 * - off: the session's gate-off baseline — the chunk goes to the arm after the screen, the
 *   monitors and the gate run, a clause hold is a would-hold (the arm is not held);
 * - hold / cbf / stepwise: the session's chunk path (ChunkExecutor: screen → gate state → joint
 *   state → tracked bottle → filter → sink) with the hold-only check, the chunk-level CBF (Eq. A.3)
 *   or the action-wise baseline (Eq. A.2); the safe-tier monitors feed the gate every tick and a
 *   hold stops the arm mid-chunk.
 * Ground truth comes from MuJoCo: the bottle's contacts and tilt (BottleObserver), the task
 * predicate (cup in the box). Filter time is wall time around each filter call.
 */
import { performance } from 'node:perf_hooks';
import {
  BottleObserver,
  DlsIk,
  FRAGILE_POLICY,
  FragileCarryPolicy,
  SimWorld,
  fragileCarryPlan,
  fragileScene,
  planContext,
  simPorts,
  targetInBox,
  type FragileArm,
  type Mujoco,
} from '../../../../drivers/sim/index.js';
import type { CbfOutcome } from '../../../gate/cbf-filter.js';
import type { ChunkFilter } from '../../../gate/cbf-types.js';
import { BodyAxisPoints } from '../../../../drivers/tracking/axis-points.js';
import { SceneTracker } from '../../../../drivers/tracking/scene-tracker.js';
import { SimTrackingAdapter } from '../../../../drivers/tracking/sim-tracking.js';
import { TrackedHeldObjectAxis } from '../../../../drivers/tracking/held-object-axis.js';
import type { GraspReference, HeldObjectAxis, HeldTiltFilter } from '../../../gate/held-tilt.js';
import { TrackedObstacles } from '../../../gate/tracked-obstacles.js';
import { CHUNK_HORIZON } from '../../../../drivers/sim/policies.js';
import { MonitorBank } from '../../../runtime/monitor-bank.js';
import type { BarrierModel } from '../../../runtime/rig.js';
import { Session } from '../../../runtime/session.js';
import { GateStateOnlyFilter, SimSessionClock, simChunkScreen, simRig, watchHolds } from '../../../rigs/sim.js';
import type { ClauseInstance } from '../../../safety/index.js';
import type { ObstacleSet } from '../../../kinematics/index.js';
import { DEMO_TASK, demoPlatform } from '../clauses.js';
import {
  ARM_FILTER_PROFILES,
  bottleSpheres,
  modeFilter,
  warmUpModeFilter,
  type FragileMode,
  type ModeFilter,
} from './filters.js';
import { REVERSAL_DEADBAND, chunkModification, correctionReversalsPerSecond, meanSquaredJerk } from '../metrics.js';
import { pathLength } from './metrics.js';
import { startDemoSession } from '../demo-session.js';

/**
 * The task the pilot's episodes record: the demo's cup-into-box task (spec/tasks.yaml), whose
 * clauses the episodes are monitored with — carrying the cup into the box is that task.
 */
export const FRAGILE_TASK = DEMO_TASK;

/** A tracked bottle sample older than this holds (s). */
const TRACKING_MAX_AGE = 0.1;

export interface FragileEpisodeInput {
  readonly mj: Mujoco;
  readonly arm: FragileArm;
  readonly mode: FragileMode;
  readonly seed: number;
  readonly clauses: readonly ClauseInstance[];
  /**
   * Filters to reuse, one per mode (a gate builds its filter once per session; the first call of a
   * fresh filter also pays for its QP's allocation). Built here when absent.
   */
  readonly filters?: FragileFilterCache;
  /** Keep every filter call's inputs in the result (`filterCalls`). */
  readonly recordFilterCalls?: boolean;
  /** Record the episode (absent: nothing is written, as in the benchmark). */
  readonly record?: FragileRecording;
  /**
   * Where the held-tilt constraint's reference comes from: 'measured' (default) the tracked cup's
   * axis at the grasp (HeldTiltFilter.objectAxis), 'tool' the tool pose at the grasp alone (the
   * reference before it, for comparison).
   */
  readonly heldTiltReference?: 'measured' | 'tool';
}

/** Where and as what an episode is recorded. */
export interface FragileRecording {
  readonly dir: string;
  readonly episodeId: string;
  /** ISO time written as the episode's start. */
  readonly startedAt: string;
}

/** The policy label recorded for the pilot's policy in a mode, e.g. `carry_through_bottle/gate-cbf`. */
export function fragilePolicyLabel(mode: FragileMode): string {
  return `${FRAGILE_POLICY}/gate-${mode}`;
}

/** One filter call's inputs (for replaying the filter alone in a benchmark). */
export interface RecordedFilterCall {
  readonly nominal: Float64Array;
  readonly horizon: number;
  readonly q0: Float64Array;
  readonly dt: number;
  /** The obstacle groups' spheres as the tracker had placed them. */
  readonly spheres: readonly Float64Array[];
  /**
   * The held cup's axis the held-tilt filter was given for the call (base frame): the sample the
   * commit re-check handed it, or what its own port gave it in a mode with no re-check; null when
   * it was given none — the grasp's reference was already measured (or not yet due), the tracker
   * had no usable sample, or the mode has no held-tilt filter. A replay that gives the filter this
   * through its port measures the same.
   */
  readonly heldAxis: Float64Array | null;
}

/** Mode filters kept across the episodes of one arm. */
export type FragileFilterCache = Map<FragileMode, ModeFilter>;

/** The held-object tilt limit from the clause set: τ − ε of held_object_tilt_world (rad), or none. */
export function heldTiltLimit(clauses: readonly ClauseInstance[]): number | null {
  const c = clauses.find((x) => x.clause.id === 'held_object_tilt_world');
  return c ? ((c.tau - (c.warn ?? 0)) * Math.PI) / 180 : null;
}

export interface FragileEpisodeResult {
  readonly arm: FragileArm;
  readonly mode: FragileMode;
  readonly seed: number;
  readonly success: boolean;
  readonly reason: string;
  /** The arm or the cup touched the bottle (MuJoCo contact list). */
  readonly contact: boolean;
  readonly contactBy: readonly string[];
  readonly tipped: boolean;
  readonly maxTiltDeg: number;
  /** Safe-tier clauses the monitors saw violated. */
  readonly violated: readonly string[];
  /** Bottle contact, tip-over or a violated clause. */
  readonly unsafe: boolean;
  readonly held: boolean;
  readonly holdReason: string;
  readonly holdT: number;
  readonly chunksHeld: number;
  readonly chunksFiltered: number;
  /** ‖U − U_nom‖ of every executed chunk (rad, arm joints). */
  readonly modifications: readonly number[];
  /** Their mean and max (0 when no chunk was executed). */
  readonly meanModification: number;
  readonly maxModification: number;
  /** End-effector path length (m). */
  readonly pathLength: number;
  /** Mean squared jerk of the executed arm joint targets (rad²/s⁶). */
  readonly jerk: number;
  /** Sign reversals of the correction per second of episode. */
  readonly reversalsPerS: number;
  /** Wall time of each filter call (ms). */
  readonly filterMs: readonly number[];
  /** Process CPU time of each filter call (ms). */
  readonly filterCpuMs: readonly number[];
  /** With `recordFilterCalls`: each call's inputs, in order. */
  readonly filterCalls: readonly RecordedFilterCall[];
  readonly dt: number;
  /** Per tick: TCP x, y, z (world). */
  readonly tcp: Float64Array;
  /** Per tick: ‖u − u_nom‖₂ (0 while held). */
  readonly correction: Float64Array;
  readonly bottle: { readonly x: number; readonly y: number; readonly radius: number };
  readonly cup: readonly [number, number];
  readonly box: readonly [number, number];
  /** The episode file (with `record`), else null. */
  readonly path: string | null;
}

/**
 * Times every call of a filter: wall time, and the process's CPU time (user + system), which on a
 * shared, loaded machine says what the filter costs rather than how long it waited for a core.
 * With `record`, each call's inputs, with the held cup's axis the filter was given for it: the
 * sample the commit re-check handed it with the grasp reference (the re-check's handover goes
 * through here to the held-tilt filter), or, where the filter reads the cup itself (no re-check),
 * what its port gave it (`recording`) — the one reading the filter used, never a second one.
 */
class TimedFilter implements ChunkFilter {
  readonly ms: number[] = [];
  readonly cpuMs: number[] = [];
  readonly calls: RecordedFilterCall[] = [];
  /** The held cup's axis given to the filter for its next call (valid while `sampled`). */
  private readonly axis = new Float64Array(3);
  private sampled = false;
  constructor(
    private readonly inner: ChunkFilter,
    private readonly record: ObstacleSet[] | null,
    /** The held-tilt filter inside `inner` (null: the mode keeps no tilt). */
    private readonly held: HeldTiltFilter | null,
  ) {}

  /** The commit re-check's handover (RecheckHeldTilt.filter): recorded, then given to the held-tilt filter. */
  restoreGrasp(r: GraspReference, heldAxis: ArrayLike<number> | null): void {
    this.given(heldAxis);
    this.held?.restoreGrasp(r, heldAxis);
  }

  /** The held-tilt filter's own port (the re-check refuses a filter that has one). */
  get objectAxis(): HeldObjectAxis | null {
    return this.held?.objectAxis ?? null;
  }

  /** `port`, with what it gives the filter recorded (a filter that reads the cup itself). */
  recording(port: HeldObjectAxis): HeldObjectAxis {
    return {
      axis: (out) => {
        const ok = port.axis(out);
        this.given(ok ? out : null);
        return ok;
      },
    };
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const inputs = this.record
      ? {
          nominal: Float64Array.from(nominal),
          horizon,
          q0: Float64Array.from(q0),
          dt,
          spheres: this.record.map((g) => Float64Array.from(g.spheres)),
        }
      : null;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const o = this.inner.filter(nominal, horizon, q0, dt, deadline);
    this.ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    this.cpuMs.push((c.user + c.system) / 1000);
    // after the call: a filter reading its own port reads during it
    if (inputs) this.calls.push({ ...inputs, heldAxis: this.sampled ? Float64Array.from(this.axis) : null });
    this.sampled = false;
    return o;
  }

  private given(axis: ArrayLike<number> | null): void {
    this.sampled = axis !== null;
    if (axis !== null) for (let i = 0; i < 3; i++) this.axis[i] = axis[i] ?? NaN;
  }
}

export async function runFragileEpisode(input: FragileEpisodeInput): Promise<FragileEpisodeResult> {
  const { mj, arm, seed } = input;
  const fs = fragileScene(arm, seed);
  const world = new SimWorld(mj, fs.scene);
  const ik = new DlsIk(mj, world);
  let observer: BottleObserver | null = null;
  try {
    world.reset(seed);
    const rows = fragileCarryPlan(fs.scene, ik, planContext(world), fs.carryHeight, fs.carrySeconds);
    const policy = new FragileCarryPolicy(rows, fs.scene.controlDt);
    observer = new BottleObserver(mj, world, fs.bottle);
    return await play(input, world, policy, fs, observer);
  } finally {
    observer?.dispose();
    ik.dispose();
    world.dispose();
  }
}

async function play(
  input: FragileEpisodeInput,
  world: SimWorld,
  policy: FragileCarryPolicy,
  fs: ReturnType<typeof fragileScene>,
  observer: BottleObserver,
): Promise<FragileEpisodeResult> {
  const { arm, mode, seed } = input;
  const scene = fs.scene;
  const dt = scene.controlDt;
  const nArm = world.nArm;
  const n = nArm + 1;
  const ports = simPorts(world);
  ports.signals.begin();
  const bank = MonitorBank.fromClauses(input.clauses, { minSampleInterval: 0.5 * dt });
  const gating = mode !== 'off';
  const g = scene.gripper;
  const gripper = [Math.min(g.open, g.closed) - 0.05, Math.max(g.open, g.closed) + 0.05] as const;
  let timed: TimedFilter | null = null;
  let bottleTracking: SimTrackingAdapter | null = null;
  let sceneTracker: SceneTracker | null = null;
  let barrier: BarrierModel;
  /** The held-tilt filter that reads the cup itself (a mode with no re-check), else null. */
  let reads: HeldTiltFilter | null = null;
  // The held cup's measured axis (the held-tilt reference), aged by the session's clock — which
  // the rig makes after the barrier: the re-check reads it through `port` once it is wired.
  const cupAxis: { axis: HeldObjectAxis | null; readonly port: HeldObjectAxis } = {
    axis: null,
    port: { axis: (out) => cupAxis.axis?.axis(out) ?? false },
  };
  if (mode !== 'off') {
    const profile = ARM_FILTER_PROFILES[arm];
    let mf = input.filters?.get(mode);
    if (mf === undefined) {
      const limit = heldTiltLimit(input.clauses);
      const tilt = limit === null ? null : { limit, grip: scene.gripper };
      warmUpModeFilter(mode, profile, nArm, n, tilt, scene.gripper, dt);
      mf = modeFilter(mode, profile, nArm, n, tilt);
      input.filters?.set(mode, mf);
    }
    // A new episode: no grasp seen yet (a reused filter must not keep the last episode's reference).
    mf.heldTilt?.reset();
    timed = new TimedFilter(mf.filter, input.recordFilterCalls ? mf.groups : null, mf.heldTilt);
    reads = mf.recheck === null ? mf.heldTilt : null;
    const spheres = bottleSpheres(fs.bottle, profile.bottleSpheres, profile.sphereMargin);
    // The hardware path: sim tracking adapter → SceneTracker → the spheres' points on the bottle's axis → TrackedObstacles.
    // The cup is tracked too (the task's target): its measured axis at the grasp is the held-tilt reference.
    const cup = scene.targetBody;
    sceneTracker = new SceneTracker({
      bystanders: [],
      obstacles: [fs.bottle.body],
      target: cup,
      source: 'sim.tracking',
    });
    bottleTracking = new SimTrackingAdapter(world, sceneTracker, { bodies: [fs.bottle.body, cup] });
    bottleTracking.prime(dt);
    const tracker = new BodyAxisPoints(sceneTracker, fs.bottle.body, spheres.offsets);
    // The world frame is the arm's base frame in both scenes (base at the origin, unrotated).
    const tracked = new TrackedObstacles(spheres.specs, mf.groups, tracker, [0, 0, 0, 0, 0, 0], TRACKING_MAX_AGE);
    barrier = {
      kind: 'cbf',
      screen: simChunkScreen(world, { gripper, minDt: 0.001, qmin: mf.qmin, qmax: mf.qmax }),
      filter: timed,
      maxStateAge: 0.05,
      obstacles: tracked,
      // No warning band on this path; the chunk as it goes to the arm is re-checked on the mode
      // filter's own barrier and tilt faces (cbf, hold), the held cup's measured axis read here and
      // handed to the filter with the grasp reference, through `timed` which records it (the
      // stepwise baseline runs as published).
      recheck:
        mf.recheck && mf.recheck.heldTilt
          ? { ...mf.recheck, heldTilt: { ...mf.recheck.heldTilt, objectAxis: cupAxis.port, filter: timed } }
          : mf.recheck,
    };
  } else {
    // The baseline screens chunks against the description's joint limits; it never filters.
    barrier = {
      kind: 'cbf',
      screen: simChunkScreen(world, { gripper, minDt: 0.001 }),
      filter: new GateStateOnlyFilter(),
      maxStateAge: 0.05,
      recheck: null,
    };
  }
  const armSink = watchHolds(ports.sink);
  const { rig, clock } = simRig({
    world,
    platform: demoPlatform(scene.id),
    monitors: bank,
    source: ports.source,
    sink: armSink,
    joints: ports.joints,
    barrier,
  });
  // The held cup's measured axis for the held-tilt reference, aged by the session's clock (the
  // filter is kept across episodes; the tracking behind it is this episode's).
  cupAxis.axis =
    sceneTracker && input.heldTiltReference !== 'tool'
      ? new TrackedHeldObjectAxis(sceneTracker, scene.targetBody, TRACKING_MAX_AGE, clock)
      : null;
  // A mode with no re-check (the stepwise baseline): its filter reads the cup itself (recorded as read).
  if (reads) reads.objectAxis = timed ? timed.recording(cupAxis.port) : cupAxis.port;
  const rec = input.record;
  const policyLabel = fragilePolicyLabel(mode);
  const { session, path } = rec
    ? await startDemoSession({
        rig,
        gating,
        dir: rec.dir,
        episodeId: rec.episodeId,
        startedAt: rec.startedAt,
        robotId: `sim-${scene.id}`,
        task: FRAGILE_TASK,
        policy: policyLabel,
        gateMode: gating ? 'on' : 'off',
        clauses: input.clauses.map((c) => c.clause.id),
      })
    : { session: new Session({ rig, gating, task: FRAGILE_TASK, log: () => undefined }), path: null };
  const sim = new SimSessionClock(session, clock);
  const ticks = policy.ticks;
  const minRho = new Float64Array(bank.count).fill(Infinity);
  const observe = (t: number): void => {
    sim.step(t);
    for (let i = 0; i < bank.count; i++) {
      const m = bank.margin(i);
      if (m < minRho[i]!) minRho[i] = m;
    }
  };
  observe(0);
  const executed = new Float64Array(ticks * n);
  const corr = new Float64Array(ticks * n);
  const playing = new Uint8Array(ticks);
  const tcp = new Float64Array(ticks * 3);
  const row = new Float64Array(n);
  const present = new Float64Array(n);
  const p = new Float64Array(3);
  let nominal: Float64Array = new Float64Array(CHUNK_HORIZON * n);
  const modifications: number[] = [];
  let chunksHeld = 0;
  let chunksFiltered = 0;
  for (let tick = 0; tick < ticks; tick++) {
    const now = tick * dt;
    bottleTracking?.publish();
    if (tick % CHUNK_HORIZON === 0) {
      world.readJoints(present);
      const chunk = policy.nextChunk(now, present);
      nominal = chunk.targets;
      const r = sim.submit(chunk, now);
      if (r.verdict === 'held' || r.verdict === 'rejected') {
        chunksHeld++;
        if (!ports.sink.isHolding) ports.sink.hold(now, r.reason);
      } else {
        if (r.verdict === 'filtered') chunksFiltered++;
        if (r.targets) modifications.push(chunkModification(r.targets, chunk.targets, n, nArm));
      }
    }
    ports.sink.tick(now);
    world.currentTargets(row);
    executed.set(row, tick * n);
    if (!ports.sink.isHolding) {
      playing[tick] = 1;
      const k = (tick % CHUNK_HORIZON) * n;
      for (let j = 0; j < nArm; j++) corr[tick * n + j] = row[j]! - nominal[k + j]!;
    }
    world.stepTick();
    world.tcpPos(p);
    tcp.set(p, tick * 3);
    // The session polls the sim's signals; a hold it commands reaches the actuators at once.
    observe(now + dt);
  }
  const outcome = targetInBox(world);
  if (rec) {
    const end = ticks * dt;
    clock.set(end);
    const labelled = session.label({
      t: end,
      source: 'predicate',
      by: 'targetInBox',
      success: outcome.success,
      taskId: FRAGILE_TASK,
      policy: policyLabel,
      note: outcome.reason,
    });
    await session.close(end, 'completed');
    if (!labelled.ok) throw new Error(`episode ${rec.episodeId}: ${labelled.reason}`);
  }
  const violated: string[] = [];
  for (let i = 0; i < bank.count; i++) if (minRho[i]! < 0) violated.push(bank.name(i));
  // Corrections and per-tick ‖u − u_nom‖ over the ticks a chunk played.
  const played: number[] = [];
  const norms = new Float64Array(ticks);
  for (let k = 0; k < ticks; k++) {
    if (playing[k] !== 1) continue;
    let sq = 0;
    for (let j = 0; j < nArm; j++) {
      played.push(corr[k * n + j]!);
      sq += corr[k * n + j]! ** 2;
    }
    norms[k] = Math.sqrt(sq);
  }
  const armTargets: number[] = [];
  for (let k = 0; k < ticks; k++) for (let j = 0; j < nArm; j++) armTargets.push(executed[k * n + j]!);

  // the port reads this episode's tracker: a filter kept for the next episode must not read it
  if (reads) reads.objectAxis = null;
  const contact = observer.contacted;
  const tipped = observer.tipped;
  return {
    arm,
    mode,
    seed,
    success: outcome.success,
    reason: outcome.reason,
    contact,
    contactBy: [...observer.touchedBy],
    tipped,
    maxTiltDeg: (observer.maxTilt * 180) / Math.PI,
    violated,
    unsafe: contact || tipped || violated.length > 0,
    held: armSink.firstHoldReason !== '',
    holdReason: armSink.firstHoldReason,
    holdT: armSink.firstHoldT,
    chunksHeld,
    chunksFiltered,
    modifications,
    meanModification: modifications.length > 0 ? modifications.reduce((a, b) => a + b, 0) / modifications.length : 0,
    maxModification: modifications.reduce((a, b) => Math.max(a, b), 0),
    pathLength: pathLength(tcp),
    jerk: meanSquaredJerk(armTargets, nArm, dt),
    reversalsPerS: played.length === 0 ? 0 : correctionReversalsPerSecond(played, nArm, dt, REVERSAL_DEADBAND),
    filterMs: timed?.ms ?? [],
    filterCpuMs: timed?.cpuMs ?? [],
    filterCalls: timed?.calls ?? [],
    dt,
    tcp,
    correction: norms,
    bottle: { x: fs.placement.bottle[0], y: fs.placement.bottle[1], radius: fs.bottle.radius },
    cup: fs.placement.cup,
    box: fs.placement.box,
    path,
  };
}
