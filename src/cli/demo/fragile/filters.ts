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
import type { ChunkPin, ChunkRecheckConfig } from '../../../gate/chunk-recheck.js';
import { obstacleGroups } from '../../../gate/capsule-barrier.js';
import { BarrierStack } from '../../../gate/barrier-stack.js';
import { descriptionBarrier } from '../../../gate/description-barrier.js';
import { HeldTiltFilter } from '../../../gate/held-tilt.js';
import { HoldOnlyFilter } from '../../../gate/hold-only-filter.js';
import { StepwiseCbfBaseline } from '../../../gate/stepwise-filter.js';
import { DEMO_MODES, type DemoMode } from '../metrics.js';
import type { TrackedObstacleSpec } from '../../../gate/tracked-obstacles.js';
import type { BottleSpec } from '../../../../drivers/sim/index.js';
import { PassiveColumnsFilter } from '../../../gate/passive-columns.js';
import {
  CapsuleModel,
  PANDA_DESCRIPTION,
  SO101_DESCRIPTION,
  armModel,
  environmentOnly,
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
  /**
   * Planning margin δ of the chunk-level CBF (m; CbfFilterConfig.planningMargin): its chunks are
   * planned d_safe + δ clear of the bottle, a configuration is refused only inside d_safe, so the
   * servo's tracking error at the next chunk's start does not hold the arm.
   */
  readonly planningMargin: number;
  /** rad/s per arm column */
  readonly maxSpeed: readonly number[];
  /** Barrier spheres along the bottle's axis (one barrier pair each) and their margin (m). */
  readonly bottleSpheres: number;
  readonly sphereMargin: number;
  /**
   * How many times the tool's tilt the held cup tilts in the fingers (≥ 1; toolTiltLimit), and the
   * faces of the tilt polygon (TiltPolygonBarrier).
   */
  readonly pivotGain: number;
  readonly tiltFaces: number;
  /** SQP rounds of the chunk-level CBF per chunk. */
  readonly cbfRounds: number;
  /** Its round 1's iteration cap (CbfFilterConfig.firstRoundIterations); absent: none. */
  readonly cbfFirstRoundIterations?: number;
  /** With it, round 1's early look at its Σξ (CbfFilterConfig.firstRoundSlackProbe); absent: none. */
  readonly cbfFirstRoundSlackProbe?: { readonly iterations: number; readonly slack: number };
  /** Its round 1 cut short as a linearisation point (CbfFilterConfig.firstRoundIterate); absent: not. */
  readonly cbfFirstRoundIterate?: { readonly iterations: number; readonly proximal: number };
  /** Shortfall (m) a safe round that keeps the planned clearance may end the rounds with (CbfFilterConfig.clearRoundTolerance); absent: δ. */
  readonly cbfClearRoundTolerance?: number;
  /** Its rounds' first-solve tolerance (CbfFilterConfig.looseRoundTolerance); absent: every solve tight. */
  readonly cbfLooseRoundTolerance?: number;
  /**
   * With cbfLooseRoundTolerance: a loose round's result is the round's result — an ambiguous Σξ is
   * settled by the exact re-check (CbfFilterConfig.looseSlackByRecheck) and the round that ends the
   * rounds is executed as solved, not finished tight (finishLooseRounds false); absent: false.
   */
  readonly cbfLooseResultsFinal?: boolean;
  /** The chunk-level CBF's weights (λ, ρ, γ, proximal μ) where they differ from DEFAULT_CBF_WEIGHTS. */
  readonly cbfWeights?: Partial<CbfWeights>;
}

export const ARM_FILTER_PROFILES: Readonly<Record<'so101' | 'panda', ArmFilterProfile>> = {
  so101: {
    description: SO101_DESCRIPTION,
    endEffector: 'gripper',
    pinnedGripperJoint: 5,
    dSafe: 0.015,
    // 1 mm: without it the servo's tracking error put the present position 0.005–0.03 mm inside
    // d_safe at the set-down (2 of 20 seeds held); 3 mm (the default demo's δ) leaves the inward
    // detour too little room and lost 2 other seeds (bench/RESULTS.md)
    planningMargin: 0.001,
    maxSpeed: [2, 2, 2, 2, 2],
    bottleSpheres: 2,
    sphereMargin: 0.005,
    // The cup turns with the tool in this grip (cup/tool tilt ratio 0.97–1.03 where the tool tilted
    // > 2°, seeds 1 and 3), unlike the default scene's block (2×)
    pivotGain: 1,
    tiltFaces: 4,
    // On the 5-DoF arm the detour is a long way from the linearisation along the nominal: with 3
    // rounds and γ 0.2 no round found a safe chunk on any seed checked; 6 rounds and a slower
    // barrier decay (γ 0.1, the detour starts earlier) find one on most (bench/RESULTS.md).
    cbfRounds: 6,
    cbfWeights: { gamma: 0.1 },
    // Round 1 at the nominal (through the bottle) cut short after 4 iterations and round 2
    // linearised at that iterate, μ 10; a safe round that keeps the planned clearance ends the
    // rounds up to 3 mm short of the barrier condition (the three-round chunks left were 1.1–2.5 mm
    // short at the chunk's last steps): its p99 chunk 24.8 → 12 interior-point iterations, 20/20
    // seeds instead of 19/20, jerk −28 % (bench/RESULTS.md)
    cbfFirstRoundIterate: { iterations: 4, proximal: 10 },
    cbfClearRoundTolerance: 0.003,
    // Rounds solved at 1e-3 and their results final (re-checked exactly, not finished tight): its
    // recorded calls 573 → 409 interior-point iterations, p99 chunk 12 → 9.8; closed loop the same
    // 20/20 with 0 contacts, jerk +1.6 % (bench/RESULTS.md). Loose rounds finished tight had cost
    // more than they saved here (p99 call 12.4 ms against 11.6–11.8 ms without).
    cbfLooseRoundTolerance: 1e-3,
    cbfLooseResultsFinal: true,
  },
  // hardware-facts §A6 Panda joint velocity limits (as FRANKA_DQ_MAX in src/rigs/franka.ts)
  panda: {
    description: PANDA_DESCRIPTION,
    endEffector: 'franka_hand',
    pinnedGripperJoint: null,
    dSafe: 0.03,
    planningMargin: 0.001,
    maxSpeed: [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61],
    bottleSpheres: 3,
    sphereMargin: 0.005,
    pivotGain: 1,
    tiltFaces: 4,
    cbfRounds: 3,
    // round 1 through the bottle that needs slack took 9–12 iterations, every other round 1 6–9
    // (with 9); since the loose rounds, 7 changed no executed chunk (replayed and closed loop: the
    // same 20/20 and corrections) and cut its p99 chunk 19 → 18 iterations (6 lost a seed then);
    // with the loose results final at 3e-3 every detour chunk's round 1 reached the cap, and 6
    // changes no executed chunk (replayed: max |Δtarget| 0), p99 chunk 11 → 10 iterations; 5
    // changes chunks by up to 0.39 rad
    cbfFirstRoundIterations: 6,
    // Round 1 looks at its Σξ after 4 iterations: the round 1s that went on to need slack had Σξ ≥
    // 0.068 there, every other ≤ 0.0033; 0.015 sits 4.5× from both. Per call p99 5.54 → 5.12 ms
    // against the tree without it, chunks the same within 1.8e-14 rad (bench/RESULTS.md)
    cbfFirstRoundSlackProbe: { iterations: 4, slack: 0.015 },
    // Rounds solved loosely first and re-linearised from there, their results final: most detour
    // chunks had spent 6 of their 14–18 iterations on a tight solve after a loose result the exact
    // re-check accepted. At 3e-3 (finished tight, 3e-3 had been worse than 1e-3: p99 chunk 19.8
    // against 19): per call p99 9.3 → 6.2 ms against main alternating (1e-3: 9.4 → 7.4), 412
    // iterations against 595; closed loop the same 20/20 with 0 contacts, jerk +8 % (bench/RESULTS.md)
    cbfLooseRoundTolerance: 3e-3,
    cbfLooseResultsFinal: true,
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

/**
 * The jaw's range over a chunk, the two {@link PinnedJointBarrier}s pinned at its low and high end:
 * the present jaw position and every row's gripper command, so a chunk that opens the jaw is also
 * checked with the jaw open (pinned at the present position alone, an opening jaw's capsules went
 * unchecked within the chunk). Set by the filter before it filters a chunk (ArmColumnsFilter) and
 * by the commit re-check before it checks the chunk as it would go to the arm (its chunkPin): a
 * chunk filtered in parts leaves the pins at its last part's range.
 */
export class JawRange implements ChunkPin {
  constructor(
    /** The barrier pinned at the low and at the high end of the jaw's range. */
    readonly pins: readonly [PinnedJointBarrier, PinnedJointBarrier],
    readonly columns: number,
    readonly gripperColumn: number,
  ) {
    if (!(gripperColumn >= 0 && gripperColumn < columns))
      throw new RangeError(`jaw range: gripper column ${gripperColumn} outside a ${columns}-column chunk`);
  }

  pinTo(chunk: ArrayLike<number>, horizon: number, q0: ArrayLike<number>): void {
    let lo = q0[this.gripperColumn] ?? NaN;
    let hi = lo;
    for (let k = 0; k < horizon; k++) {
      const v = chunk[k * this.columns + this.gripperColumn] ?? NaN;
      // NaN propagates: a jaw the barrier cannot place is refused, never skipped
      lo = v < lo || v !== v ? v : lo;
      hi = v > hi || v !== v ? v : hi;
    }
    this.pins[0].value = lo;
    this.pins[1].value = hi;
  }
}

/**
 * Filters the first `arm` columns of a chunk of `columns` columns with `inner` through
 * {@link PassiveColumnsFilter}: the other columns (the gripper command) pass through exactly as sent.
 * With a pinned jaw (the SO-101, a model joint that is not an arm column): pinned to its range
 * over the chunk ({@link JawRange}) before the chunk is filtered.
 */
export class ArmColumnsFilter implements ChunkFilter {
  private readonly columnsFilter: PassiveColumnsFilter;

  constructor(
    readonly inner: ChunkFilter,
    readonly arm: number,
    readonly columns: number,
    /** The jaw's pins (null: no pinned joint). */
    private readonly jaw: JawRange | null,
  ) {
    this.columnsFilter = new PassiveColumnsFilter(inner, arm, columns);
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    this.jaw?.pinTo(nominal, horizon, q0);
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
  /** The held-tilt switch (reset per episode), when the mode keeps the held object's tilt. */
  readonly heldTilt: HeldTiltFilter | null;
  /**
   * What the chunk path re-checks the chunk as it would go to the arm against (CommitRecheck): the
   * filter's own barrier, limits, planning margin and tilt faces, the re-check handing the
   * HeldTiltFilter the committed grasp reference. The SO-101's barrier is the jaw-pinned pair,
   * pinned by the re-check itself to the jaw's range over the chunk it checks and q0 (chunkPin:
   * the filter's last pins are its last part's where it filters a grasp chunk in two); its tilt
   * faces take the jaw from the chunk's gripper column. null for the
   * stepwise baseline: the action-wise filter of Eq. A.2 is measured as published (it does not
   * re-check its rows), a comparison, never a gate mode of a rig.
   */
  readonly recheck: ChunkRecheckConfig | null;
}

export interface HeldTilt {
  /** Tilt limit of the held object (rad): the clause's τ less its warning band ε. */
  readonly limit: number;
  /** The gripper command's open and closed values (the chunk's gripper column). */
  readonly grip: { readonly open: number; readonly closed: number };
}

/**
 * The filter of `mode` (not 'off') for a chunk of `columns` columns whose first `arm` are the arm,
 * on the barrier compiled from the arm's robot description (descriptionBarrier, as the default
 * demo's and the hardware rigs' chunk path): the bottle's spheres as one distance pair each.
 * `tilt`: also keep the held object's tilt under its limit (cbf and stepwise; the hold-only check
 * never modifies a chunk, and its tilt is the monitors' business), as the tilt polygon switched by
 * the gripper command (HeldTiltFilter). The chunk-level CBF plans δ beyond d_safe (the profile's
 * planning margin); the hold-only check and the action-wise baseline check d_safe itself.
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
  const planningMargin = mode === 'cbf' ? profile.planningMargin : 0;
  const compiled = descriptionBarrier(profile.description, profile.endEffector, {
    groups,
    dSafe: profile.dSafe,
    planningMargin,
    selfClearance: null,
    heldTilt:
      tilt && mode !== 'hold'
        ? { objectLimit: tilt.limit, pivotGain: profile.pivotGain, faces: profile.tiltFaces }
        : null,
  });
  const pinnedJoint = profile.pinnedGripperJoint;
  const pins =
    pinnedJoint === null
      ? null
      : ([
          new PinnedJointBarrier(compiled.barrier, pinnedJoint),
          new PinnedJointBarrier(compiled.barrier, pinnedJoint),
        ] as const);
  const barrier: BarrierModel = pins ? new BarrierStack([...pins]) : compiled.barrier;
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
        planningMargin,
        ...(profile.cbfFirstRoundIterations === undefined
          ? {}
          : { firstRoundIterations: profile.cbfFirstRoundIterations }),
        ...(profile.cbfFirstRoundSlackProbe === undefined
          ? {}
          : { firstRoundSlackProbe: profile.cbfFirstRoundSlackProbe }),
        ...(profile.cbfClearRoundTolerance === undefined
          ? {}
          : { clearRoundTolerance: profile.cbfClearRoundTolerance }),
        ...(profile.cbfFirstRoundIterate === undefined ? {} : { firstRoundIterate: profile.cbfFirstRoundIterate }),
        ...(profile.cbfLooseRoundTolerance === undefined
          ? {}
          : { looseRoundTolerance: profile.cbfLooseRoundTolerance }),
        ...(profile.cbfLooseResultsFinal === true ? { looseSlackByRecheck: true, finishLooseRounds: false } : {}),
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
  const jaw = pins ? new JawRange(pins, columns, arm) : null;
  const armFilter = new ArmColumnsFilter(inner, arm, columns, jaw);
  // The tilt pairs are over the description's joints: the arm columns, then (SO-101) the jaw, which
  // is the chunk's gripper column — the tilt filter reads a chunk row's leading columns.
  const filter =
    compiled.tilt && tilt
      ? new HeldTiltFilter(armFilter, compiled.tilt, { column: arm, ...tilt.grip }, columns)
      : armFilter;
  const heldTilt = filter instanceof HeldTiltFilter ? filter : null;
  const recheck: ChunkRecheckConfig | null =
    mode === 'stepwise'
      ? null
      : {
          barrier,
          qmin,
          qmax,
          maxSpeed: profile.maxSpeed,
          planningMargin,
          gamma: profile.cbfWeights?.gamma ?? DEFAULT_CBF_WEIGHTS.gamma,
          chunkPin: jaw,
          heldTilt:
            heldTilt && compiled.tilt ? { barrier: compiled.tilt, gripper: heldTilt.gripper, filter: heldTilt } : null,
        };
  return { filter, groups, qmin, qmax, heldTilt, recheck };
}

/** Rows of a warm-up chunk (the pilot's chunks are H = 50), and how many chunks: enough solves for V8 to optimise the solver's loops. */
const WARM_UP_ROWS = 50;
const WARM_UP_SWEEPS = 8;

/**
 * Compiles a mode filter's code before the pilot's first chunk, as the rigs' filter worker does
 * before it takes one (src/rigs/filter-worker/filter-host.ts): V8 compiles on first use, and without
 * this the first episode's calls took 36–183 ms (SO-101 cbf) against under 15 ms in later episodes
 * (bench/RESULTS.md). It runs a throwaway filter of the same mode and profile — a filter keeps
 * per-chunk state (warm starts, the jaw's pins, the grasp reference), so the one the pilot runs sees
 * nothing of this — on chunks that sweep the arm from mid-range toward each end of its joint ranges
 * in turn, over a 1 cm sphere put 2 cm below the arm's tip half-way (both arms bend such chunks);
 * in the last two the gripper closes half-way (the held-tilt faces switch on, the chunk is filtered
 * in two parts). Returns the outcomes' statuses, so a test can see that the sweep reached the solver.
 */
export function warmUpModeFilter(
  mode: Exclude<FragileMode, 'off'>,
  profile: ArmFilterProfile,
  arm: number,
  columns: number,
  tilt: HeldTilt | null,
  grip: { readonly open: number; readonly closed: number },
  dt: number,
): CbfOutcome['status'][] {
  const f = modeFilter(mode, profile, arm, columns, tilt);
  const desc = profile.description;
  const model = new CapsuleModel(environmentOnly(armModel(desc, profile.endEffector)));
  const modelJoints = desc.chain.joints.length;
  const H = WARM_UP_ROWS;
  const mid = f.qmin.map((lo, j) => (lo + f.qmax[j]!) / 2);
  const q0 = Float64Array.from({ length: columns }, (_, j) => (j < arm ? mid[j]! : grip.open));
  const statuses: CbfOutcome['status'][] = [];
  for (let sweep = 0; sweep < WARM_UP_SWEEPS; sweep++) {
    // toward the upper and the lower limits in turn; the last two close the gripper half-way
    const end = sweep % 2 === 0 ? f.qmax : f.qmin;
    const grasp = sweep >= WARM_UP_SWEEPS - 2;
    const targets = new Float64Array(H * columns);
    for (let k = 0; k < H; k++) {
      const s = (0.3 * (k + 1)) / H;
      for (let j = 0; j < arm; j++) targets[k * columns + j] = mid[j]! + s * (end[j]! - mid[j]!);
      for (let j = arm; j < columns; j++) targets[k * columns + j] = grasp && k >= H / 2 ? grip.closed : grip.open;
    }
    // the model's joints are the chunk's leading columns (the SO-101's jaw is its gripper column)
    const row = Math.floor(H / 2);
    model.update(targets.subarray(row * columns, row * columns + modelJoints));
    const tip = 6 * (model.count - 1) + 3;
    f.groups.forEach((g, i) =>
      g.spheres.set(
        i === 0
          ? [model.world[tip]!, model.world[tip + 1]!, model.world[tip + 2]! - 0.02, 0.01]
          : [100, 100, 100, 0.01],
      ),
    );
    statuses.push(f.filter.filter(targets, H, q0, dt).status);
  }
  return statuses;
}
