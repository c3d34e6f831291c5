/**
 * Stage events of seeds/003 (§3.5, App. E): three ordered first-hit times `t_attempt → t_commit →
 * t_success` from observable state. Attempt: the end effector comes within ε_att of the actor (or
 * grasps it). Commit (only after attempt): the end effector or the actor enters the task's critical
 * region — within ε_xy horizontally and ε_z vertically of the target's reference point — or the
 * actor touches or is inside the target; a grasp is not required. Success (only at or after
 * commit): the environment's terminal predicate. A predicate never met leaves its time null.
 * Pure: observations in, times out.
 */

export type Vec3 = readonly [number, number, number];

/** Fixed across tasks (seeds/003 App. E, "default thresholds"). */
export const EPS_ATTEMPT = 0.1;

/** A task's critical region around the target's reference point (spec/tasks.yaml `semantic`). */
export interface CriticalRegion {
  /** Horizontal radius (m). */
  readonly epsXy: number;
  /** Vertical half-height (m). */
  readonly epsZ: number;
}

/** What the tracker reads each step (seeds/003 E.2 primitives). */
export interface StageObservation {
  readonly t: number;
  /** End-effector (tool centre point) position. */
  readonly ee: Vec3;
  /** Gripper aperture (m between the fingers); recorded, not used by the default predicates. */
  readonly gripperAperture: number;
  /** The manipulated object's position. */
  readonly actor: Vec3;
  /** The target's reference point (e.g. the rim centre of a container, the top of a surface). */
  readonly target: Vec3;
  /** Grasp(actor). */
  readonly grasped: boolean;
  /** Contact(actor, target). */
  readonly actorTargetContact: boolean;
  /** Inside(actor, target volume). */
  readonly actorInside: boolean;
  /** The environment's terminal predicate. */
  readonly success: boolean;
}

export interface StageTimes {
  readonly attempt: number | null;
  readonly commit: number | null;
  readonly success: number | null;
}

export type Stage = 'none' | 'attempt' | 'commit' | 'success';

function dist(a: Vec3, b: Vec3): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Inside the critical region: within ε_xy horizontally and ε_z vertically of the target point. */
export function inCriticalRegion(p: Vec3, target: Vec3, region: CriticalRegion): boolean {
  return Math.hypot(p[0] - target[0], p[1] - target[1]) <= region.epsXy && Math.abs(p[2] - target[2]) <= region.epsZ;
}

export function attemptHolds(o: StageObservation, epsAttempt = EPS_ATTEMPT): boolean {
  return o.grasped || dist(o.ee, o.actor) <= epsAttempt;
}

export function commitHolds(o: StageObservation, region: CriticalRegion): boolean {
  return (
    o.actorTargetContact ||
    o.actorInside ||
    inCriticalRegion(o.ee, o.target, region) ||
    inCriticalRegion(o.actor, o.target, region)
  );
}

/** First-hit extraction, one observation at a time (the same on a live run and a recorded scan). */
export class StageTracker {
  private attemptT: number | null = null;
  private commitT: number | null = null;
  private successT: number | null = null;

  constructor(
    readonly region: CriticalRegion,
    readonly epsAttempt = EPS_ATTEMPT,
  ) {
    if (!(region.epsXy > 0) || !(region.epsZ > 0) || !(epsAttempt > 0))
      throw new RangeError('stage thresholds must be > 0');
  }

  /** Fold one observation; returns the stage newly reached at this step, or undefined. */
  observe(o: StageObservation): Stage | undefined {
    let reached: Stage | undefined;
    if (this.attemptT === null && attemptHolds(o, this.epsAttempt)) {
      this.attemptT = o.t;
      reached = 'attempt';
    }
    if (this.attemptT !== null && this.commitT === null && commitHolds(o, this.region)) {
      this.commitT = o.t;
      reached = 'commit';
    }
    if (this.commitT !== null && this.successT === null && o.success) {
      this.successT = o.t;
      reached = 'success';
    }
    return reached;
  }

  get stage(): Stage {
    return this.successT !== null
      ? 'success'
      : this.commitT !== null
        ? 'commit'
        : this.attemptT !== null
          ? 'attempt'
          : 'none';
  }

  get times(): StageTimes {
    return { attempt: this.attemptT, commit: this.commitT, success: this.successT };
  }
}

/** Stage times of a whole recorded sequence (first-hit scan of seeds/003 E.4). */
export function extractStageTimes(
  observations: Iterable<StageObservation>,
  region: CriticalRegion,
  epsAttempt = EPS_ATTEMPT,
): StageTimes {
  const tracker = new StageTracker(region, epsAttempt);
  for (const o of observations) tracker.observe(o);
  return tracker.times;
}
