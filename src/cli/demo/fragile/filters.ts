/**
 * The chunk filter of each fragile-obstacle mode, built on the robot description's capsule model
 * with the bottle as tracked barrier spheres (tracker → TrackedObstacles → CBF obstacles, the
 * hardware path), plus the glue between the sim's chunk columns and the model's joints.
 */
import type { CbfOutcome } from '../../../gate/cbf-filter.js';
import type { CbfWeights } from '../../../gate/cbf-qp.js';
import { ChunkCbfFilter, DEFAULT_CBF_TOLERANCE, DEFAULT_CBF_WEIGHTS } from '../../../gate/cbf-filter.js';
import { interiorPointSolver } from '../../../gate/cbf-solver.js';
import type { BarrierModel, ChunkFilter } from '../../../gate/cbf-types.js';
import { CapsuleBarrier, obstacleGroups } from '../../../gate/capsule-barrier.js';
import { HoldOnlyFilter } from '../../../gate/hold-only-filter.js';
import { StepwiseCbfBaseline } from '../../../gate/stepwise-filter.js';
import { DEMO_MODES, type DemoMode } from '../metrics.js';
import type { TrackedObstacleSpec } from '../../../gate/tracked-obstacles.js';
import type { BottleSpec } from '../../../../drivers/sim/index.js';
import { BarrierStack } from '../../../gate/barrier-stack.js';
import { OrientationBarrier } from '../../../gate/orientation-barrier.js';
import { PassiveColumnsFilter } from '../../../gate/passive-columns.js';
import {
  CapsuleModel,
  ForwardKinematics,
  armModel,
  endEffectorOf,
  PANDA_DESCRIPTION,
  SO101_DESCRIPTION,
  type ObstacleSet,
  type RobotDescription,
} from '../../../kinematics/index.js';

/**
 * Barrier spheres covering the bottle's cylinder: `count` spheres centred along its axis at equal
 * spacing, each of radius √(r² + (L/count)²) + margin (L = half height), so together they enclose
 * it. Returns the tracked bodies (`<body>#i`) and each centre's offset along the axis.
 */
export function bottleSpheres(
  bottle: BottleSpec,
  count: number,
  margin: number,
): { specs: TrackedObstacleSpec[]; offsets: number[] } {
  const seg = bottle.halfHeight / count;
  const radius = Math.hypot(bottle.radius, seg) + margin;
  const specs: TrackedObstacleSpec[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) {
    specs.push({ body: `${bottle.body}#${i}`, radius });
    offsets.push(-bottle.halfHeight + seg * (2 * i + 1));
  }
  return { specs, offsets };
}

/** The pilot runs every demo gate mode (src/cli/demo/metrics.ts). */
export type FragileMode = DemoMode;
export const FRAGILE_MODES: readonly FragileMode[] = DEMO_MODES;

/** Per-arm barrier settings: which description and end effector, d_safe, speed limits, bottle spheres. */
export interface ArmFilterProfile {
  readonly description: RobotDescription;
  readonly endEffector: string;
  /** Model joints that are not chunk arm columns (the SO-101 jaw): pinned to the chunk's gripper command. */
  readonly pinnedGripperJoint: number | null;
  readonly dSafe: number;
  /** rad/s per arm column */
  readonly maxSpeed: readonly number[];
  /** Barrier spheres along the bottle's axis (one barrier pair each) and their margin (m). */
  readonly bottleSpheres: number;
  readonly sphereMargin: number;
  /** Chain frame of the TCP (for the held-object tilt barrier). */
  readonly tcpFrame: number;
  /** Lever L (m) of the held-object tilt barrier: its h is L·(cos tilt − cos limit). */
  readonly tiltLever: number;
  /** SQP rounds of the chunk-level CBF per chunk. */
  readonly cbfRounds: number;
  /** The chunk-level CBF's weights (λ, ρ, γ, proximal μ) where they differ from DEFAULT_CBF_WEIGHTS. */
  readonly cbfWeights?: Partial<CbfWeights>;
}

export const ARM_FILTER_PROFILES: Readonly<Record<'so101' | 'panda', ArmFilterProfile>> = {
  so101: {
    description: SO101_DESCRIPTION,
    endEffector: 'gripper',
    pinnedGripperJoint: 5,
    dSafe: 0.015,
    maxSpeed: [2, 2, 2, 2, 2],
    bottleSpheres: 2,
    sphereMargin: 0.005,
    tcpFrame: endEffectorOf(SO101_DESCRIPTION, 'gripper').tcp.frame,
    tiltLever: 1,
    // On the 5-DoF arm the detour is a long way from the linearisation along the nominal: with 3
    // rounds and γ 0.2 no round found a safe chunk on any seed checked; 6 rounds and a slower
    // barrier decay (γ 0.1, the detour starts earlier) find one on most (bench/RESULTS.md).
    cbfRounds: 6,
    cbfWeights: { gamma: 0.1 },
  },
  // hardware-facts §A6 Panda joint velocity limits (as FRANKA_DQ_MAX in src/rigs/franka.ts)
  panda: {
    description: PANDA_DESCRIPTION,
    endEffector: 'franka_hand',
    pinnedGripperJoint: null,
    dSafe: 0.03,
    maxSpeed: [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61],
    bottleSpheres: 3,
    sphereMargin: 0.005,
    tcpFrame: endEffectorOf(PANDA_DESCRIPTION, 'franka_hand').tcp.frame,
    tiltLever: 1,
    cbfRounds: 3,
  },
};

/** A barrier over all model joints but one, which is held at `value` (set before each chunk). */
export class PinnedJointBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  value = 0;
  private readonly full: Float64Array;
  private readonly fullGrad: Float64Array;

  constructor(
    readonly inner: BarrierModel,
    readonly pinned: number,
  ) {
    if (pinned < 0 || pinned >= inner.joints)
      throw new RangeError(`pinned joint ${pinned} outside 0…${inner.joints - 1}`);
    this.joints = inner.joints - 1;
    this.pairs = inner.pairs;
    this.full = new Float64Array(inner.joints);
    this.fullGrad = new Float64Array(inner.joints * inner.pairs);
  }

  h(q: Float64Array, out: Float64Array): number {
    this.expand(q);
    return this.inner.h(this.full, out);
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    this.expand(q);
    this.inner.gradient(this.full, hOut, this.fullGrad);
    const n = this.inner.joints;
    for (let p = 0; p < this.pairs; p++) {
      let c = 0;
      for (let j = 0; j < n; j++) if (j !== this.pinned) grad[p * this.joints + c++] = this.fullGrad[p * n + j]!;
    }
  }

  private expand(q: Float64Array): void {
    let c = 0;
    for (let j = 0; j < this.inner.joints; j++) this.full[j] = j === this.pinned ? this.value : q[c++]!;
  }
}

/** How the glue tells that the hand holds the cup: the chunk's first gripper command is closed. */
export interface GripSense {
  readonly closed: number;
  readonly open: number;
}

/**
 * Filters the first `arm` columns of a chunk of `columns` columns with `inner` through
 * {@link PassiveColumnsFilter}: the other columns (the gripper command) pass through exactly as sent.
 * With a pinned barrier, its joint follows the present gripper command of q0. With a tilt barrier,
 * the constraint is switched on while the chunk starts with the gripper commanded closed, its
 * reference taken at q0 of the first such chunk (the cup was upright when lifted).
 */
export class ArmColumnsFilter implements ChunkFilter {
  private readonly columnsFilter: PassiveColumnsFilter;
  private readonly qFull: Float64Array;

  constructor(
    readonly inner: ChunkFilter,
    readonly arm: number,
    readonly columns: number,
    private readonly pinned: PinnedJointBarrier | null,
    private readonly gripperColumn: number,
    private readonly tilt: { barrier: OrientationBarrier; grip: GripSense } | null = null,
  ) {
    this.columnsFilter = new PassiveColumnsFilter(inner, arm, columns);
    this.qFull = new Float64Array(arm + (pinned ? 1 : 0));
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    if (this.pinned) this.pinned.value = q0[this.gripperColumn] ?? NaN;
    if (this.tilt) {
      const { barrier, grip } = this.tilt;
      const g = nominal[this.gripperColumn] ?? NaN;
      const gripping = Math.abs(g - grip.closed) <= 0.1 * Math.abs(grip.open - grip.closed);
      if (!gripping) barrier.enabled = false;
      else if (!barrier.enabled) {
        let c = 0;
        for (let j = 0; j < this.qFull.length; j++)
          this.qFull[j] = this.pinned && j === this.pinned.pinned ? this.pinned.value : (q0[c++] ?? NaN);
        barrier.captureReference(this.qFull);
      }
    }
    return this.columnsFilter.filter(nominal, horizon, q0, dt, deadline);
  }
}

export interface ModeFilter {
  readonly filter: ChunkFilter;
  /** The spheres' obstacle groups, for TrackedObstacles. */
  readonly groups: ObstacleSet[];
  /** The capsule model's arm-column joint limits. */
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
}

export interface HeldTilt {
  /** Tilt limit of the held object (rad): the clause's τ less its warning band ε. */
  readonly limit: number;
  readonly grip: GripSense;
}

/**
 * The filter of `mode` (not 'off') for a chunk of `columns` columns whose first `arm` are the arm.
 * `tilt`: also keep the held object's tilt under its limit (cbf and stepwise; the hold-only check
 * never modifies a chunk, and its tilt is the monitors' business).
 */
export function modeFilter(
  mode: Exclude<FragileMode, 'off'>,
  profile: ArmFilterProfile,
  arm: number,
  columns: number,
  tilt: HeldTilt | null,
): ModeFilter {
  const spheres: ObstacleSet = {
    planes: new Float64Array(0),
    spheres: new Float64Array(4 * profile.bottleSpheres),
    box: null,
  };
  const groups = obstacleGroups(spheres);
  const distance = new CapsuleBarrier(
    new CapsuleModel(armModel(profile.description, profile.endEffector)),
    groups,
    profile.dSafe,
  );
  // h = L·(cos(tilt) − cos(limit)) with the profile's lever L (1: dimensionless), h = L while nothing
  // is held: the settings the pilot's figures in bench/RESULTS.md were measured with.
  const tiltBarrier =
    tilt && mode !== 'hold'
      ? new OrientationBarrier(
          new ForwardKinematics(profile.description.chain),
          profile.tcpFrame,
          tilt.limit,
          profile.tiltLever,
          profile.tiltLever,
        )
      : null;
  const full = tiltBarrier ? new BarrierStack([distance, tiltBarrier]) : distance;
  const pinned = profile.pinnedGripperJoint === null ? null : new PinnedJointBarrier(full, profile.pinnedGripperJoint);
  const barrier: BarrierModel = pinned ?? full;
  if (barrier.joints !== arm)
    throw new RangeError(
      `${profile.description.id}: barrier has ${barrier.joints} joints, the scene ${arm} arm joints`,
    );
  const limits = profile.description.chain.joints.filter((_, j) => j !== profile.pinnedGripperJoint);
  const qmin = limits.map((j) => j.lower);
  const qmax = limits.map((j) => j.upper);
  const common = { qmin, qmax, maxSpeed: profile.maxSpeed };
  let inner: ChunkFilter;
  switch (mode) {
    case 'hold':
      inner = new HoldOnlyFilter(barrier, common);
      break;
    case 'cbf':
      inner = new ChunkCbfFilter(barrier, interiorPointSolver, {
        ...DEFAULT_CBF_WEIGHTS,
        ...profile.cbfWeights,
        ...common,
        maxRounds: profile.cbfRounds,
        slackTolerance: 1e-6,
        cbfTolerance: DEFAULT_CBF_TOLERANCE,
        maxIterations: 40,
      });
      break;
    case 'stepwise':
      inner = new StepwiseCbfBaseline(barrier, interiorPointSolver, {
        ...common,
        rho: DEFAULT_CBF_WEIGHTS.rho,
        gamma: DEFAULT_CBF_WEIGHTS.gamma,
        slackTolerance: 1e-6,
        recheck: false,
        maxIterations: 40,
      });
      break;
  }
  const tiltGlue = tiltBarrier && tilt ? { barrier: tiltBarrier, grip: tilt.grip } : null;
  return { filter: new ArmColumnsFilter(inner, arm, columns, pinned, arm, tiltGlue), groups, qmin, qmax };
}
