/**
 * The robot's CBF barrier (design §6, seeds/001 Eq. A.4) as a BarrierModel over src/kinematics:
 * one pair per obstacle group — h_p(q) = min distance(environment capsules, group p) − d_safe —
 * and optionally one self-collision pair. Gradients are analytic (active term's n̂·J, one FK update
 * per configuration for all pairs). Obstacle groups are mutable (tracked objects move).
 */
import type { CapsuleModel } from '../kinematics/capsules.js';
import { ClearanceGradient } from '../kinematics/clearance-gradient.js';
import { minimumClearance } from '../kinematics/obstacles.js';
import type { Clearance, ObstacleSet } from '../kinematics/obstacles.js';
import type { BarrierModel } from './cbf-types.js';

const NO_OBSTACLES: ObstacleSet = { planes: new Float64Array(0), spheres: new Float64Array(0), box: null };

/** One group per tracked sphere, per plane, and one for the workspace box. */
export function obstacleGroups(set: ObstacleSet): ObstacleSet[] {
  const groups: ObstacleSet[] = [];
  for (let k = 0; k + 3 < set.spheres.length; k += 4)
    groups.push({ planes: new Float64Array(0), spheres: set.spheres.slice(k, k + 4), box: null });
  for (let k = 0; k + 3 < set.planes.length; k += 4)
    groups.push({ planes: set.planes.slice(k, k + 4), spheres: new Float64Array(0), box: null });
  if (set.box) groups.push({ planes: new Float64Array(0), spheres: new Float64Array(0), box: set.box.slice() });
  return groups;
}

export class CapsuleBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  private readonly scratch: Clearance = { distance: Infinity, kind: 'none', capsule: -1, other: -1 };
  private readonly clearanceGradient: ClearanceGradient;

  constructor(
    readonly model: CapsuleModel,
    /** Obstacle groups, one barrier pair each; edit their arrays in place as objects move. */
    readonly groups: readonly ObstacleSet[],
    public dSafe: number,
    readonly options: { includeSelf: boolean } = { includeSelf: false },
  ) {
    this.joints = model.fk.joints;
    this.pairs = groups.length + (options.includeSelf ? 1 : 0);
    if (this.pairs === 0) throw new RangeError('CapsuleBarrier needs at least one obstacle group or self-collision');
    this.clearanceGradient = new ClearanceGradient(model);
  }

  h(q: Float64Array, out: Float64Array): number {
    this.model.update(q);
    return this.evalPairs(out);
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    const g = this.groups;
    const c = this.scratch;
    this.model.update(q);
    for (let p = 0; p < g.length; p++) {
      hOut[p] = minimumClearance(this.model, g[p]!, false, c).distance - this.dSafe;
      this.clearanceGradient.compute(g[p]!, c, grad, p * n);
    }
    if (this.options.includeSelf) {
      hOut[g.length] = minimumClearance(this.model, NO_OBSTACLES, true, c).distance - this.dSafe;
      this.clearanceGradient.compute(NO_OBSTACLES, c, grad, g.length * n);
    }
  }

  /** Pair values for the model's current configuration. */
  private evalPairs(out: Float64Array): number {
    let min = Infinity;
    const g = this.groups;
    for (let p = 0; p < g.length; p++) {
      const d = minimumClearance(this.model, g[p]!, false, this.scratch).distance - this.dSafe;
      out[p] = d;
      if (d < min || d !== d) min = d;
    }
    if (this.options.includeSelf) {
      const d = minimumClearance(this.model, NO_OBSTACLES, true, this.scratch).distance - this.dSafe;
      out[g.length] = d;
      if (d < min || d !== d) min = d;
    }
    return min;
  }
}
