/**
 * The demo's `cbf` gate mode (issue 15): the hardware barrier model for the MuJoCo testbed. The
 * episode's session (src/rigs/sim.ts, src/runtime/session.ts) sends every proposed chunk through
 * the same ChunkExecutor as on an arm — screen → gate state → present joint state → tracked
 * obstacles refreshed (stale → hold) → chunk-level CBF (seeds/001 Eq. A.3) → sink — with the
 * barrier compiled here from the scene arm's robot description (the same description the MuJoCo
 * arm was generated from; src/gate/description-barrier.ts: the obstacle pairs, the self-collision
 * pair, the held object's tilt switched by the gripper command, all planned a margin δ beyond what
 * the filter checks) and the bystanders as tracked spheres fed by the simulator's tracking
 * adapter through a SceneTracker, as motion capture is on hardware.
 */
import type { SimWorld } from '../../../drivers/sim/index.js';
import { SceneTracker } from '../../../drivers/tracking/scene-tracker.js';
import { SimTrackingAdapter } from '../../../drivers/tracking/sim-tracking.js';
import {
  ChunkCbfFilter,
  DEFAULT_CBF_TOLERANCE,
  DEFAULT_CBF_WEIGHTS,
  TrackedObstacles,
  interiorPointSolver,
  obstacleGroups,
  type CbfOutcome,
} from '../../gate/index.js';
import type { ChunkFilter } from '../../gate/cbf-types.js';
import { descriptionBarrier, type DescriptionBarrierOptions } from '../../gate/description-barrier.js';
import { HeldTiltFilter } from '../../gate/held-tilt.js';
import { PassiveColumnsFilter } from '../../gate/passive-columns.js';
import { ScaledBarrier, ScaledChunkFilter } from '../../gate/joint-weights.js';
import type { BarrierModel } from '../../gate/cbf-types.js';
import type { ChunkRecheckConfig } from '../../gate/chunk-recheck.js';
import type { ObstacleSet } from '../../kinematics/index.js';
import { simChunkScreen, type ChunkBarrier } from '../../rigs/sim.js';

/**
 * The barrier's settings are descriptionBarrier's own (d_safe, planning margin δ, the self pair's
 * clearance, the held object's tilt limit and pivot gain): one declaration, documented there.
 */
export interface SimCbfOptions
  extends Pick<DescriptionBarrierOptions, 'dSafe' | 'planningMargin' | 'selfClearance' | 'heldTilt'> {
  /**
   * While the held object's tilt is constrained, the filter's joint-space distance weights joint j
   * by scale_j² (joint-weights.ts; one entry per arm joint), so a tilt correction turns the wrist
   * rather than the shoulder and the held object stays on its path. null: unweighted.
   */
  readonly heldJointScale: readonly number[] | null;
  /** Keep the arm's environment capsules d_safe above the table top (z = 0). */
  readonly tablePlane: boolean;
  /** Tracked positions older than this (s) hold the gate (the hardware rule). */
  readonly trackingMaxAge: number;
  readonly trackingLatencyTicks: number;
  readonly trackingNoise: number;
  /** Per-joint speed bound of the filter (rad/s), arm joints then the gripper (unused: the gripper column passes through). */
  readonly maxSpeed: readonly number[];
  /** Wall clock for the filter-time figures (ms). */
  readonly wallMs: () => number;
  /** Process CPU clock (ms), for the benchmark's load-independent figure; optional. */
  readonly cpuMs?: () => number;
}

/** Filter time of every call, for the demo's p50/p99 (the timing wraps the filter, nothing else). */
class TimedCbfFilter extends ChunkCbfFilter {
  times: number[] = [];
  wallMs: () => number = () => 0;
  cpuTimes: number[] = [];
  cpuMs: () => number = () => 0;
  private cpu0 = 0;
  override filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    this.cpu0 = this.cpuMs();
    const t0 = this.wallMs();
    const o = super.filter(nominal, horizon, q0, dt, deadline);
    const c0 = this.cpuMs();
    this.times.push(this.wallMs() - t0);
    this.cpuTimes.push(c0 - this.cpu0);
    return o;
  }
}

/**
 * Built once per world (the filter preallocates its QP per chunk shape); per episode, `barrier`
 * for the episode's rig and `begin` once the world is reset: a fresh tracker and delay line, the
 * filter times cleared.
 */
export class SimCbfPath {
  readonly tracker: SceneTracker;
  tracking: SimTrackingAdapter;
  private readonly filter: TimedCbfFilter;
  /** The filter the executor calls: `filter` over the arm columns, the gripper column exactly as sent. */
  private readonly chunkFilter: ChunkFilter;
  private readonly tracked: TrackedObstacles;
  private readonly heldTilt: HeldTiltFilter | null;
  private readonly gripperRange: readonly [number, number];
  /** The re-check of the chunk as it would go to the arm (after the warning band): the filter's barrier, limits and tilt faces. */
  private readonly recheck: ChunkRecheckConfig;

  constructor(
    private readonly world: SimWorld,
    private readonly o: SimCbfOptions,
  ) {
    const scene = world.scene;
    const desc = scene.robot.description;
    const chain = desc.chain;
    const bodies = scene.bystanderBodies;
    const obstacles: ObstacleSet = {
      planes: o.tablePlane ? Float64Array.from([0, 0, 1, 0]) : new Float64Array(0),
      spheres: new Float64Array(4 * bodies.length),
      box: null,
    };
    const groups = obstacleGroups(obstacles);
    const {
      barrier,
      distance: capsules,
      tilt,
    } = descriptionBarrier(desc, scene.robot.endEffector, {
      groups,
      dSafe: o.dSafe,
      planningMargin: o.planningMargin,
      selfClearance: o.selfClearance,
      heldTilt: o.heldTilt,
    });
    const columns = world.nArm + 1;
    if (capsules.joints > columns)
      throw new RangeError(
        `scene ${scene.id}: the description has ${capsules.joints} joints, a chunk ${columns} columns`,
      );
    const gripperRange = [
      Math.min(scene.gripper.open, scene.gripper.closed),
      Math.max(scene.gripper.open, scene.gripper.closed),
    ] as const;
    this.gripperRange = gripperRange;
    // Joint limits: the description's for the joints it has; the gripper command's range otherwise.
    const qmin = Array.from({ length: columns }, (_, j) => chain.joints[j]?.lower ?? gripperRange[0]);
    const qmax = Array.from({ length: columns }, (_, j) => chain.joints[j]?.upper ?? gripperRange[1]);
    // The CBF sees the joints the barrier has; the trailing (gripper) column passes through untouched.
    const arm = capsules.joints;
    // One filter per joint scaling (the joint limits and speed bounds scale with the coordinates);
    // both time into the same arrays.
    const timed = (model: BarrierModel, scale: readonly number[] | null): TimedCbfFilter => {
      const sx = (a: readonly number[]): number[] => a.map((v, j) => v * (scale?.[j] ?? 1));
      const f = new TimedCbfFilter(model, interiorPointSolver, {
        ...DEFAULT_CBF_WEIGHTS,
        qmin: sx(qmin.slice(0, arm)),
        qmax: sx(qmax.slice(0, arm)),
        maxSpeed: sx(o.maxSpeed.slice(0, arm)),
        maxRounds: 3,
        slackTolerance: 1e-6,
        cbfTolerance: DEFAULT_CBF_TOLERANCE,
        maxIterations: 40,
        planningMargin: o.planningMargin,
      });
      f.wallMs = o.wallMs;
      if (o.cpuMs) f.cpuMs = o.cpuMs;
      return f;
    };
    this.filter = timed(barrier, null);
    const passive = (f: ChunkFilter): ChunkFilter => (arm === columns ? f : new PassiveColumnsFilter(f, arm, columns));
    const armFilter = passive(this.filter);
    // While the tilt constraint is on: the joints weighted (joint-weights.ts), so a tilt correction
    // is made at the wrist, not the shoulder.
    let heldArm: ChunkFilter | undefined;
    const scale = o.heldJointScale;
    if (tilt && scale !== null) {
      if (scale.length !== arm)
        throw new RangeError(`scene ${scene.id}: held joint scale has ${scale.length} entries, the arm ${arm} joints`);
      const held = timed(new ScaledBarrier(barrier, scale), scale);
      held.times = this.filter.times;
      held.cpuTimes = this.filter.cpuTimes;
      heldArm = passive(new ScaledChunkFilter(held, scale));
    }
    this.heldTilt = tilt
      ? new HeldTiltFilter(
          armFilter,
          tilt,
          { column: world.nArm, open: scene.gripper.open, closed: scene.gripper.closed },
          columns,
          heldArm,
        )
      : null;
    this.chunkFilter = this.heldTilt ?? armFilter;
    this.recheck = {
      barrier,
      qmin: qmin.slice(0, arm),
      qmax: qmax.slice(0, arm),
      maxSpeed: o.maxSpeed.slice(0, arm),
      planningMargin: o.planningMargin,
      gamma: DEFAULT_CBF_WEIGHTS.gamma,
      heldTilt: tilt && this.heldTilt ? { barrier: tilt, gripper: this.heldTilt.gripper, filter: this.heldTilt } : null,
    };
    this.tracker = new SceneTracker({ bystanders: [], obstacles: bodies, source: 'sim.tracking' });
    this.tracking = this.adapter(0);
    this.tracked = new TrackedObstacles(
      bodies.map((body, k) => ({ body, radius: (scene.bystanderExtents[k] ?? 0) + 3 * o.trackingNoise })),
      groups.slice(0, bodies.length),
      this.tracker,
      [0, 0, 0, 0, 0, 0],
      o.trackingMaxAge,
    );
  }

  private adapter(seed: number): SimTrackingAdapter {
    const { o, world } = this;
    return new SimTrackingAdapter(world, this.tracker, {
      bodies: world.scene.bystanderBodies,
      latencyTicks: o.trackingLatencyTicks,
      positionNoise: o.trackingNoise,
      seed,
    });
  }

  /** An episode's barrier model for its rig (a fresh screen: chunk ids and the policy clock are per episode). */
  barrier(): ChunkBarrier {
    return {
      kind: 'cbf',
      screen: simChunkScreen(this.world, { gripper: this.gripperRange, minDt: 0.005 }),
      filter: this.chunkFilter,
      maxStateAge: 0.1,
      obstacles: this.tracked,
      recheck: this.recheck,
    };
  }

  /**
   * A new episode (after the world is reset): a fresh tracker whose delay line is primed with the
   * objects at rest (the tracker ran while the scene settled), timings cleared.
   */
  begin(seed: number): void {
    this.tracker.resetEpisode();
    this.tracking = this.adapter(seed);
    this.tracking.prime(this.world.scene.controlDt);
    this.filter.times.length = 0;
    this.filter.cpuTimes.length = 0;
    this.heldTilt?.reset();
  }

  /** Wall time of every filter call this episode (ms). */
  get filterMs(): readonly number[] {
    return this.filter.times;
  }

  /** CPU time of every filter call this episode (ms; zeros without a CPU clock). */
  get filterCpuMs(): readonly number[] {
    return this.filter.cpuTimes;
  }

  /** Once per control tick: the tracker publishes what it sees. */
  tick(): void {
    this.tracking.publish();
  }
}
