/**
 * Stage events on a live arm (issue 18; seeds/003 §3.5, App. E): the same first-hit StageTracker
 * the testbed uses, fed from what a real cell observes. The end effector comes from the joint state
 * through the kinematics; the grasp from the gripper's grasp signal; the actor (manipulated object)
 * from tracking when it is tracked, else estimated — at its declared start position until it is
 * grasped, then at the hand while grasped (the rigid-grasp assumption the signal mapping makes),
 * then where it was released; the target's reference point from tracking or its declared position.
 * Contact(actor, target) and Inside(actor, target) have no live sensor: commit rests on the
 * critical region (the ∃p ∈ {p_ee, p_actor} predicate of App. E.3), which contains them for a
 * container whose opening lies inside it. Success is the operator's success label, counted only
 * at or after commit (the stage-ordering constraint). Steps without a usable end-effector position
 * or target point are not evaluated and are counted, so a report never reads "no commit" for a
 * stretch nobody observed. Pure: observations in, times out.
 */
import {
  EPS_ATTEMPT,
  StageTracker,
  type CriticalRegion,
  type Stage,
  type StageObservation,
  type StageTimes,
  type Vec3,
} from './stage-events.js';

export interface LiveStageSetup {
  readonly region: CriticalRegion;
  readonly epsAttempt?: number;
  /** The actor's declared start position (base frame, m), when it is not tracked. */
  readonly actorStart?: Vec3;
  /** The target's declared reference point (base frame, m), when it is not tracked. */
  readonly targetPoint?: Vec3;
}

/** One live observation; positions in the robot base frame (m). */
export interface LiveStageInput {
  readonly t: number;
  /** End-effector (TCP) position from the joint state; non-finite when the joint state is not usable. */
  readonly ee: Vec3;
  /** Distance between the fingers (m); NaN where the gripper does not report it. Recorded only. */
  readonly gripperAperture: number;
  /** Grasp(actor): the gripper's grasp signal. */
  readonly grasped: boolean;
  /** Fresh tracked actor position, when tracked. */
  readonly actor?: Vec3;
  /** Fresh tracked target reference point, when tracked. */
  readonly target?: Vec3;
}

export type ActorSource = 'tracked' | 'grasped' | 'declared' | 'released' | 'unknown';

const finite3 = (p: Vec3 | undefined): p is Vec3 =>
  p !== undefined && Number.isFinite(p[0]) && Number.isFinite(p[1]) && Number.isFinite(p[2]);
const NO_POINT: Vec3 = [NaN, NaN, NaN];
/** Copies p into `into`; true (for `has…` flags). */
function copy(p: Vec3, into: Point): true {
  into[0] = p[0];
  into[1] = p[1];
  into[2] = p[2];
  return true;
}

type Point = [number, number, number];
type MutableObservation = { -readonly [K in keyof StageObservation]: StageObservation[K] };

/**
 * Folds live observations into a StageTracker. Positions are copied into the tracker's own storage
 * (a reader may hand the same arrays every step) and one observation object is reused, so a step
 * allocates nothing.
 */
export class LiveStageTracker {
  private readonly tracker: StageTracker;
  /** The actor estimate and the target point, valid while hasActor / hasTarget. */
  private readonly actor: Point = [NaN, NaN, NaN];
  private hasActor: boolean;
  private actorFrom: ActorSource;
  private readonly target: Point = [NaN, NaN, NaN];
  private hasTarget: boolean;
  private readonly observation: MutableObservation;
  private successT: number | null = null;
  /** Steps folded into the tracker / skipped for want of an end-effector position or a target point. */
  observed = 0;
  unobserved = 0;
  /** Why the last skipped step was skipped. */
  lastGap = '';

  constructor(readonly setup: LiveStageSetup) {
    this.tracker = new StageTracker(setup.region, setup.epsAttempt ?? EPS_ATTEMPT);
    this.hasActor = finite3(setup.actorStart) && copy(setup.actorStart, this.actor);
    this.actorFrom = this.hasActor ? 'declared' : 'unknown';
    this.hasTarget = finite3(setup.targetPoint) && copy(setup.targetPoint, this.target);
    this.observation = {
      t: NaN,
      ee: NO_POINT,
      gripperAperture: NaN,
      actor: NO_POINT,
      target: NO_POINT,
      grasped: false,
      actorTargetContact: false,
      actorInside: false,
      success: false,
    };
  }

  /** Where the actor estimate of the last step came from. */
  get actorSource(): ActorSource {
    return this.actorFrom;
  }

  /** Fold one observation; returns the stage newly reached at this step, if any. */
  observe(o: LiveStageInput): Stage | undefined {
    return this.observeAt(o.t, o);
  }

  /** observe() with the time apart from the reading (no object to build per step). */
  observeAt(t: number, o: Omit<LiveStageInput, 't'>): Stage | undefined {
    if (finite3(o.target)) this.hasTarget = copy(o.target, this.target);
    if (finite3(o.actor)) {
      this.hasActor = copy(o.actor, this.actor);
      this.actorFrom = 'tracked';
    } else if (o.grasped && finite3(o.ee)) {
      this.hasActor = copy(o.ee, this.actor);
      this.actorFrom = 'grasped';
    } else if (this.actorFrom === 'grasped') {
      this.actorFrom = 'released';
    }
    if (!finite3(o.ee) || !this.hasTarget) {
      this.unobserved++;
      this.lastGap = !finite3(o.ee)
        ? 'no end-effector position (joint state not usable)'
        : 'no target position (neither tracked nor declared)';
      return undefined;
    }
    this.observed++;
    const obs = this.observation;
    obs.t = t;
    obs.ee = o.ee;
    obs.gripperAperture = o.gripperAperture;
    obs.actor = this.hasActor ? this.actor : NO_POINT;
    obs.target = this.target;
    obs.grasped = o.grasped;
    const reached = this.tracker.observe(obs);
    obs.ee = NO_POINT; // keep no reference to the reader's array
    return reached;
  }

  /**
   * The operator labelled the task a success at `t`: t_success, when commit was reached (seeds/003's
   * ordering: success only at or after commit). Returns whether it counted.
   */
  succeed(t: number): boolean {
    const c = this.tracker.times.commit;
    if (c === null || t < c || this.successT !== null) return false;
    this.successT = t;
    return true;
  }

  get stage(): Stage {
    return this.successT !== null ? 'success' : this.tracker.stage;
  }

  get times(): StageTimes {
    return { ...this.tracker.times, success: this.successT };
  }
}
