/**
 * The chunk warning band against hand-computed cases. The motion model is a one-axis "arm" whose
 * joint 0 is the tool height above a table at z = 0 (clearance = height = q0), so every prediction
 * below can be worked out by hand from the approach, load and grip models.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  WarningBand,
  type BandClauseSpec,
  type ChunkMotionModel,
  type WarningBandConfig,
} from '../../src/gate/warning-band.js';

/** Joint 0 = height (m) of the tool above the table; gravity load a constant. */
function heightModel(gravity = 0): ChunkMotionModel {
  return {
    trace(q0, u, horizon, columns, out) {
      out.surfaceClearance[0] = q0[0]!;
      out.tcpHeight[0] = q0[0]!;
      out.gravityLoad[0] = gravity;
      for (let k = 0; k < horizon; k++) {
        const z = u[k * columns]!;
        out.surfaceClearance[k + 1] = z;
        out.tcpHeight[k + 1] = z;
        out.gravityLoad[k + 1] = gravity;
      }
    },
  };
}

const APPROACH = { contactDistance: 0.005, impactGain: 100, pressStiffness: 10_000 };
const force = (action: BandClauseSpec['action'], epsilon: number): BandClauseSpec => ({
  id: 'max_contact_force',
  predictor: 'approach_speed',
  action,
  limit: 200,
  side: 'upper',
  epsilon,
});
const rows = (...zs: number[]) => Float64Array.from(zs);
const NOT_GRIPPING = { gripping: false, heldHeight: 0 };

describe('warning band: approach_speed (contact force predicted from the chunk)', () => {
  it('holds the arm at the last step outside the band, before the predicted violation', () => {
    // q0 = 5 cm; 1 cm per 0.1 s step (0.1 m/s) down to 3 cm below the table top.
    // Predicted F: rows 0–3 clear (≥ 1 cm > 5 mm) → 0; row 4 (d = 0) → 100·0.1 = 10 N;
    // row 5 (d = −1 cm) → 10 + 10 000·0.01 = 110 N, margin 90 N < ε = 100 N → inside the band
    // (not violated yet); row 6 would be 210 N (ρ < 0).
    const band = new WarningBand(heightModel(), {
      clauses: [force('hold', 100)],
      armJoints: 1,
      runOn: 0,
      approach: APPROACH,
    });
    const nominal = rows(0.04, 0.03, 0.02, 0.01, 0, -0.01, -0.02, -0.03);
    const o = band.filter(nominal, 8, 1, 0.1, [0.05], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'held', clause: 'max_contact_force', step: 5, heldFrom: 5 });
    expect(o.margin).toBeCloseTo(90, 9);
    expect(Array.from(o.targets)).toEqual([0.04, 0.03, 0.02, 0.01, 0, 0, 0, 0]);
    expect(o.modification).toBeCloseTo(0.03, 12);
    // The held chunk, predicted again, stays outside the band: v = 0 at d = 0 → F = 0 after row 4.
    const again = new WarningBand(heightModel(), {
      clauses: [force('hold', 100)],
      armJoints: 1,
      runOn: 0,
      approach: APPROACH,
    });
    expect(again.filter(Float64Array.from(o.targets), 8, 1, 0.1, [0.05], NOT_GRIPPING).status).toBe('unchanged');
  });

  it('slows a fast approach when the slowed chunk stays outside the band', () => {
    // 2 cm per 10 ms (2 m/s) from 10 cm to the table: row 4 (d = 0) → F = 100·2 = 200 N, margin 0 < 20.
    // At s = 0.5 row k is the path at (k+1)/2 − 1: 9, 8, 7, 6, 5, 4, 3, 2 cm — never within 5 mm.
    const band = new WarningBand(heightModel(), {
      clauses: [force('slow', 20)],
      armJoints: 1,
      runOn: 0,
      approach: APPROACH,
    });
    const o = band.filter(rows(0.08, 0.06, 0.04, 0.02, 0, 0, 0, 0), 8, 1, 0.01, [0.1], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'slowed', step: 4, scale: 0.5 });
    expect(o.margin).toBeCloseTo(0, 9);
    const expected = [0.09, 0.08, 0.07, 0.06, 0.05, 0.04, 0.03, 0.02];
    Array.from(o.targets).forEach((x, k) => expect(x).toBeCloseTo(expected[k]!, 12));
  });

  it('holds when no slowing keeps the prediction outside the band (the targets press into the table)', () => {
    const band = new WarningBand(heightModel(), {
      clauses: [force('slow', 20)],
      armJoints: 1,
      runOn: 0,
      approach: APPROACH,
    });
    // q0 = 0 (on the surface), rows 2 cm deeper per 0.1 s: row 0 d = −2 cm, v = 0.2 m/s → 20 + 200 = 220 N.
    // s = 0.5: −1 cm (110 N), −2 cm (10 + 200 = 210 N: in band). s = 0.25: −5, −10, −15 mm (55, 105, 155 N),
    // then −2 cm (5 + 200 = 205 N: in band). No factor works → hold at q0 from the first row.
    const o = band.filter(rows(-0.02, -0.04, -0.06, -0.08), 4, 1, 0.1, [0], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'held', step: 0, heldFrom: 0, scale: 1 });
    expect(Array.from(o.targets)).toEqual([0, 0, 0, 0]);
  });

  it('counts the run-on of a fast arm (speed × runOn) toward the contact distance', () => {
    // 2 m/s (2 cm per 10 ms) from 10 cm, runOn 20 ms: 4 cm. Row 1 (6 cm): 6 − 4 = 2 cm ≥ 5 mm → 0 N;
    // row 2 (4 cm): 4 − 4 = 0 < 5 mm → touching at 2 m/s → 200 N, margin 0 < ε = 20: hold from row 2.
    const band = new WarningBand(heightModel(), {
      clauses: [force('hold', 20)],
      armJoints: 1,
      runOn: 0.02,
      approach: APPROACH,
    });
    const o = band.filter(rows(0.08, 0.06, 0.04, 0.02), 4, 1, 0.01, [0.1], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'held', step: 2, heldFrom: 2 });
    expect(Array.from(o.targets)).toEqual([0.08, 0.06, 0.06, 0.06]);
  });

  it('passes a chunk that stays outside the band unchanged — the same array, no copy (no false hold)', () => {
    const band = new WarningBand(heightModel(), {
      clauses: [force('hold', 20)],
      armJoints: 1,
      runOn: 0,
      approach: APPROACH,
    });
    // a slow touch: 1 mm per 0.1 s (1 cm/s) to the surface → F = 100·0.01 = 1 N at most
    const nominal = rows(0.004, 0.003, 0.002, 0.001, 0, 0);
    const o = band.filter(nominal, 6, 1, 0.1, [0.005], NOT_GRIPPING);
    expect(o.status).toBe('unchanged');
    expect(o.targets).toBe(nominal);
    expect(o).toMatchObject({ clause: '', step: -1, heldFrom: -1, modification: 0 });
  });

  it('property: chunks that stay clear of the surface are never modified', () => {
    const band = new WarningBand(heightModel(), {
      clauses: [force('slow', 20)],
      armJoints: 2,
      runOn: 0,
      approach: APPROACH,
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.double({ min: 0.005, max: 2, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true })),
          { minLength: 1, maxLength: 60 },
        ),
        fc.double({ min: 0.005, max: 2, noNaN: true }),
        fc.double({ min: 1e-3, max: 0.1, noNaN: true }),
        (steps, z0, dt) => {
          const u = Float64Array.from(steps.flat());
          const o = band.filter(u, steps.length, 2, dt, [z0, 0], NOT_GRIPPING);
          return o.status === 'unchanged' && o.targets === u;
        },
      ),
    );
  });

  it('a prediction that is not a number counts as inside the band (fail safe)', () => {
    const nanModel: ChunkMotionModel = {
      trace(q0, u, horizon, columns, out) {
        heightModel().trace(q0, u, horizon, columns, out);
        out.surfaceClearance[3] = NaN;
      },
    };
    const band = new WarningBand(nanModel, {
      clauses: [force('hold', 20)],
      armJoints: 1,
      runOn: 0,
      approach: APPROACH,
    });
    const o = band.filter(rows(0.5, 0.5, 0.5, 0.5), 4, 1, 0.1, [0.5], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'held', step: 2, heldFrom: 2 });
    expect(o.margin).toBeNaN();
  });
});

describe('warning band: commanded_load (joint torque from the commanded targets)', () => {
  const torque: BandClauseSpec = {
    id: 'joint_torque',
    predictor: 'commanded_load',
    action: 'bend',
    limit: 1.5,
    side: 'upper',
    epsilon: 0.15,
  };
  const config: WarningBandConfig = {
    clauses: [torque],
    armJoints: 2,
    runOn: 0,
    load: { qmin: [-1, -1], qmax: [1, 1], stiffness: 10, stallTorque: 5, bendMargin: 0.05, surfaceLever: 0 },
  };

  it('bends targets beyond the reachable range back inside it', () => {
    // predicted τ = gravity 0.5 + min(5, 10·excess): rows 0.5 → 0.5; 1.1 → 1.5 (margin 0 < 0.15); 1.2 → 2.5 (ρ < 0).
    // Bent into [−0.95, 0.95]: 0.5, 0.95, 0.95 → 0.5 N·m everywhere.
    const band = new WarningBand(heightModel(0.5), config);
    const o = band.filter(rows(0.5, 0, 1.1, 0, 1.2, 0), 3, 2, 0.1, [0.4, 0], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'bent', clause: 'joint_torque', step: 1 });
    expect(o.margin).toBeCloseTo(0, 12);
    expect(Array.from(o.targets)).toEqual([0.5, 0, 0.95, 0, 0.95, 0]);
    expect(o.modification).toBeCloseTo(0.25, 12);
  });

  it('counts targets driven into a surface as load (depth / lever) and, as bending cannot lift them, holds', () => {
    // lever 0.2 m: row 1 is 4 mm deep → 0.02 rad → 0.5 + 10·0.02 = 0.7 N·m; row 2 is 2 cm deep → 0.1 rad → 1.5 N·m (margin 0).
    const band = new WarningBand(heightModel(0.5), { ...config, load: { ...config.load!, surfaceLever: 0.2 } });
    const o = band.filter(rows(0.01, 0, -0.004, 0, -0.02, 0), 3, 2, 0.1, [0.02, 0], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'held', clause: 'joint_torque', step: 2, heldFrom: 2 });
    expect(o.margin).toBeCloseTo(0, 12);
    expect(Array.from(o.targets)).toEqual([0.01, 0, -0.004, 0, -0.004, 0]);
    // with 0.1 s of run-on the arm is predicted 1.4 cm further down at row 1 (−1.8 cm): 0.5 + 10·0.09 = 1.4 N·m,
    // margin 0.1 < 0.15 → hold from row 1 at row 0
    const runOn = new WarningBand(heightModel(0.5), {
      ...config,
      runOn: 0.1,
      load: { ...config.load!, surfaceLever: 0.2 },
    });
    const r = runOn.filter(rows(0.01, 0, -0.004, 0, -0.02, 0), 3, 2, 0.1, [0.02, 0], NOT_GRIPPING);
    expect(r).toMatchObject({ status: 'held', step: 1, heldFrom: 1 });
    expect(r.margin).toBeCloseTo(0.1, 12);
  });

  it('passes targets inside the range unchanged, and holds when bending cannot help (gravity alone is in the band)', () => {
    const band = new WarningBand(heightModel(0.5), config);
    const inside = rows(0.9, -0.9, 0.95, 0.99);
    expect(band.filter(inside, 2, 2, 0.1, [0.9, -0.9], NOT_GRIPPING).targets).toBe(inside);
    const heavy = new WarningBand(heightModel(1.4), config); // 1.4 N·m of gravity: margin 0.1 < ε anywhere
    const o = heavy.filter(rows(0.2, 0, 0.3, 0), 2, 2, 0.1, [0.1, 0], NOT_GRIPPING);
    expect(o).toMatchObject({ status: 'held', step: 0, heldFrom: 0 });
    expect(Array.from(o.targets)).toEqual([0.1, 0, 0.1, 0]);
  });
});

describe('warning band: held_height (grasp slip predicted from the commanded height)', () => {
  // columns: tool height, gripper (0 closed, 1 open); the object is 0 m above its baseline now.
  const grasp: BandClauseSpec = {
    id: 'stable_grasp_maintained',
    predictor: 'held_height',
    action: 'hold',
    limit: -0.02,
    side: 'lower',
    epsilon: 0.002,
  };
  const config: WarningBandConfig = {
    clauses: [grasp],
    armJoints: 1,
    runOn: 0,
    grip: { column: 1, open: 1, releaseDelta: 0.3 },
  };
  const gripping = { gripping: true, heldHeight: 0 };

  it('stops the descent before the held object goes 2 cm below its baseline, and still opens the gripper', () => {
    // tool from 10 cm down 5 mm a step: object −5, −10, −15, −20 mm … margin at row 3 = 0 < 2 mm.
    const band = new WarningBand(heightModel(), config);
    const nominal = rows(0.095, 0, 0.09, 0, 0.085, 0, 0.08, 0, 0.075, 0, 0.07, 0, 0.07, 1, 0.07, 1);
    const o = band.filter(nominal, 8, 2, 0.1, [0.1, 0], gripping);
    expect(o).toMatchObject({ status: 'held', clause: 'stable_grasp_maintained', step: 3, heldFrom: 3 });
    expect(o.margin).toBeCloseTo(0, 12);
    expect(Array.from(o.targets)).toEqual([
      0.095, 0, 0.09, 0, 0.085, 0, 0.085, 0, 0.085, 0, 0.085, 0, 0.085, 1, 0.085, 1,
    ]);
  });

  it('stops earlier by the run-on of the descent (runOn × speed)', () => {
    // runOn 0.1 s at 5 mm per 0.1 s: each predicted height is 5 mm lower. Row 2: −15 − 5 = −20 mm → margin 0 → hold from row 2.
    const band = new WarningBand(heightModel(), { ...config, runOn: 0.1 });
    const o = band.filter(rows(0.095, 0, 0.09, 0, 0.085, 0, 0.08, 0), 4, 2, 0.1, [0.1, 0], gripping);
    expect(o).toMatchObject({ status: 'held', step: 2, heldFrom: 2 });
    expect(Array.from(o.targets)).toEqual([0.095, 0, 0.09, 0, 0.09, 0, 0.09, 0]);
  });

  it('does not predict a held object after the chunk releases it, nor when nothing is gripped', () => {
    const band = new WarningBand(heightModel(), config);
    // opens at row 1, then descends 5 cm: no object in the hand to slip
    const release = rows(0.1, 0, 0.1, 1, 0.05, 1, 0.05, 1);
    expect(band.filter(release, 4, 2, 0.1, [0.1, 0], gripping).status).toBe('unchanged');
    const down = rows(0.05, 0, 0.0, 0);
    expect(band.filter(down, 2, 2, 0.1, [0.1, 0], NOT_GRIPPING).status).toBe('unchanged');
    // an object already resting on a support 1 cm below its baseline cannot be pushed lower: no prediction below −1 cm
    expect(band.filter(down, 2, 2, 0.1, [0.1, 0], { gripping: true, heldHeight: -0.01, supported: true }).status).toBe(
      'unchanged',
    );
    // the same object, unsupported, would be predicted 10 cm lower
    expect(band.filter(down, 2, 2, 0.1, [0.1, 0], { gripping: true, heldHeight: -0.01 }).status).toBe('held');
  });
});

describe('warning band configuration', () => {
  it('refuses ε ≤ 0, a predictor without its model and slow factors outside (0, 1)', () => {
    expect(
      () => new WarningBand(heightModel(), { clauses: [force('hold', 0)], armJoints: 1, runOn: 0, approach: APPROACH }),
    ).toThrow(/ε must be > 0/);
    expect(() => new WarningBand(heightModel(), { clauses: [force('hold', 20)], armJoints: 1, runOn: 0 })).toThrow(
      /needs an approach model/,
    );
    expect(
      () =>
        new WarningBand(heightModel(), {
          clauses: [force('slow', 20)],
          armJoints: 1,
          runOn: 0,
          approach: APPROACH,
          slowFactors: [1],
        }),
    ).toThrow(/slow factors/);
  });
});
