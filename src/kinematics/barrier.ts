import type { CapsuleModel } from './capsules.js';
import { minimumClearance, type Clearance, type ObstacleSet } from './obstacles.js';

/**
 * The CBF barrier of design §6 as one scalar: h(q) = min distance(robot capsules, obstacles ∪ other
 * links) − d_safe, used to check results independently of the filter (tests, closed-loop checks).
 * Its gradient is by central differences (step `step` rad); min() is only piecewise smooth, so at a
 * switch of the active pair the result is a one-sided mix. The chunk filter itself uses the
 * per-pair analytic gradients of the gate's CapsuleBarrier (ClearanceGradient).
 */
export class Barrier {
  readonly clearance: Clearance = { distance: Infinity, kind: 'none', capsule: -1, other: -1 };
  private readonly qs: Float64Array;
  private readonly scratch: Clearance = { distance: Infinity, kind: 'none', capsule: -1, other: -1 };

  constructor(
    readonly model: CapsuleModel,
    public obstacles: ObstacleSet,
    public dSafe: number,
    readonly options: { includeSelf: boolean; step?: number } = { includeSelf: true },
  ) {
    this.qs = new Float64Array(model.fk.joints);
  }

  /** h(q). Leaves the model at q and the active term in `clearance`. */
  value(q: ArrayLike<number>): number {
    this.model.update(q);
    minimumClearance(this.model, this.obstacles, this.options.includeSelf, this.clearance);
    return this.clearance.distance - this.dSafe;
  }

  /** Fills grad (length ≥ joints) with ∂h/∂q and returns h(q). No allocation. */
  gradient(q: ArrayLike<number>, grad: Float64Array): number {
    const n = this.model.fk.joints;
    const step = this.options.step ?? 1e-6;
    const qs = this.qs;
    for (let i = 0; i < n; i++) qs[i] = q[i] ?? 0;
    for (let i = 0; i < n; i++) {
      const qi = qs[i]!;
      qs[i] = qi + step;
      const hp = this.eval(qs);
      qs[i] = qi - step;
      const hm = this.eval(qs);
      qs[i] = qi;
      grad[i] = (hp - hm) / (2 * step);
    }
    return this.value(qs);
  }

  private eval(q: Float64Array): number {
    this.model.update(q);
    return minimumClearance(this.model, this.obstacles, this.options.includeSelf, this.scratch).distance - this.dSafe;
  }
}
