import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CapsuleModel,
  ClearanceGradient,
  FR3_MODEL,
  minimumClearance,
  PANDA_MODEL,
  SO101_MODEL,
} from '../../src/kinematics/index.js';
import type { ArmModelSpec, Clearance, ObstacleSet } from '../../src/kinematics/index.js';

/** Central difference of the active-set-free min clearance: the independent reference. */
function numericGradient(
  model: CapsuleModel,
  obs: ObstacleSet,
  self: boolean,
  q: number[],
  step: number,
): { grad: number[]; kink: number } {
  const c: Clearance = { distance: 0, kind: 'none', capsule: -1, other: -1 };
  const d = (x: number[]) => {
    model.update(x);
    return minimumClearance(model, obs, self, c).distance;
  };
  const d0 = d(q);
  const grad: number[] = [];
  let kink = 0;
  for (let j = 0; j < q.length; j++) {
    const up = q.slice(),
      dn = q.slice();
    up[j]! += step;
    dn[j]! -= step;
    const fwd = (d(up) - d0) / step,
      bwd = (d0 - d(dn)) / step;
    grad.push((fwd + bwd) / 2);
    kink = Math.max(kink, Math.abs(fwd - bwd));
  }
  return { grad, kink };
}

const models: [string, ArmModelSpec][] = [
  ['SO-101', SO101_MODEL],
  ['FR3', FR3_MODEL],
  ['Panda', PANDA_MODEL],
];

describe('analytic clearance gradient (n̂·J of the active term)', () => {
  for (const [name, spec] of models) {
    it(`${name}: matches central differences of the min clearance wherever the min is smooth`, () => {
      const joints = spec.chain.joints;
      const qArb = fc.tuple(...joints.map((j) => fc.double({ min: j.lower, max: j.upper, noNaN: true })));
      const sphere = fc.tuple(
        fc.double({ min: -0.4, max: 0.4, noNaN: true }),
        fc.double({ min: -0.4, max: 0.4, noNaN: true }),
        fc.double({ min: 0, max: 0.6, noNaN: true }),
        fc.double({ min: 0.01, max: 0.08, noNaN: true }),
      );
      const kind = fc.constantFrom('sphere', 'plane', 'box', 'self');
      let checked = 0;
      fc.assert(
        fc.property(qArb, sphere, kind, (q, s, k) => {
          const obs: ObstacleSet = {
            planes: k === 'plane' ? Float64Array.from([0, 0, 1, -0.02]) : new Float64Array(0),
            spheres: k === 'sphere' ? Float64Array.from(s) : new Float64Array(0),
            box: k === 'box' ? Float64Array.from([-0.9, -0.9, -0.05, 0.9, 0.9, 1.2]) : null,
          };
          const self = k === 'self';
          const model = new CapsuleModel(spec);
          const { grad: ref, kink } = numericGradient(model, obs, self, q, 1e-7);
          fc.pre(kink < 1e-4); // away from a switch of the active term (min is not differentiable there)
          model.update(q);
          const active: Clearance = { distance: 0, kind: 'none', capsule: -1, other: -1 };
          minimumClearance(model, obs, self, active);
          const g = new Float64Array(q.length + 2).fill(NaN);
          new ClearanceGradient(model).compute(obs, active, g, 1);
          expect(g[0]).toBeNaN(); // writes only its slice
          expect(g[q.length + 1]).toBeNaN();
          for (let j = 0; j < q.length; j++) expect(Math.abs(g[1 + j]! - ref[j]!)).toBeLessThan(1e-5);
          checked++;
        }),
        { numRuns: 150 },
      );
      expect(checked).toBeGreaterThan(100);
    });
  }

  it('hand-computed: a sphere straight above the SO-101 tool tip moves away at the lift rate of the tip', () => {
    const model = new CapsuleModel(SO101_MODEL);
    const q = [0, 0, 0, 0, 0, 0];
    model.update(q);
    // the last environment capsule's far endpoint (the jaw; the self-collision volumes follow the
    // environment capsules and are not used against obstacles); a sphere 10 m beyond it along +z
    let i = model.count - 1;
    while (!model.environment[i]) i--;
    const w = model.world;
    const e = [w[6 * i + 3]!, w[6 * i + 4]!, w[6 * i + 5]!];
    const obs: ObstacleSet = {
      planes: new Float64Array(0),
      spheres: Float64Array.from([e[0]!, e[1]!, e[2]! + 10, 0.01]),
      box: null,
    };
    const active: Clearance = { distance: 0, kind: 'none', capsule: -1, other: -1 };
    minimumClearance(model, obs, false, active);
    const g = new Float64Array(6);
    new ClearanceGradient(model).compute(obs, active, g, 0);
    // far away along +z, d ≈ (c_z − x_z) − radii, so ∂d/∂q = −∂x_z/∂q of the closest point
    const J = new Float64Array(18);
    model.update(q);
    const t = active.capsule === i ? 1 : NaN;
    expect(t).toBe(1);
    model.fk.pointJacobian(J, model.frames[i]!, e[0]!, e[1]!, e[2]!);
    for (let j = 0; j < 6; j++) expect(g[j]).toBeCloseTo(-J[12 + j]!, 3);
  });
});
