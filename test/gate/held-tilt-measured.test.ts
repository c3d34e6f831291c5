/**
 * The held-tilt reference from the held object's MEASURED axis at the grasp (issue 15, the SO-101
 * pilot's seed 7: the closing fingers tip the cup 11° with the tool level). On the pan–tilt arm
 * (tool z = world z at q = 0; the tilt joint turns the tool about world x at pan 0, so at (pan p,
 * tilt t) the tool turns an object axis (0, sin α, cos α) into one whose z is cos(α − t)): an
 * object gripped leaning α at the upright tool tilts |α − t| at tilt t, whatever the pan — the
 * hand-computed figure the barrier's prediction is checked against. With the tool-pose reference
 * (the only one before) the gate counted the object upright: it let a chunk tip it past its limit
 * and refused one that levels it.
 */
import { describe, expect, it } from 'vitest';
import type { CbfOutcome, ChunkFilter } from '../../src/gate/index.js';
import { HeldTiltFilter, type HeldObjectAxis } from '../../src/gate/held-tilt.js';
import { HoldOnlyFilter } from '../../src/gate/hold-only-filter.js';
import { OrientationBarrier, TiltPolygonBarrier } from '../../src/gate/orientation-barrier.js';
import { PassiveColumnsFilter } from '../../src/gate/passive-columns.js';
import { newOutcome } from '../../src/gate/filter-common.js';
import { ForwardKinematics } from '../../src/kinematics/index.js';
import { PAN_TILT_CHAIN, PAN_TILT_TOOL } from './support/pan-tilt.js';

const OPEN = 1;
const CLOSED = 0;
const GRIP = { column: 2, open: OPEN, closed: CLOSED } as const;

/** A chunk of 3 columns (pan, tilt, gripper), one row per entry. */
const chunk = (pan: number[], tilt: number[], grip: number[]): Float64Array =>
  Float64Array.from(tilt.flatMap((t, k) => [pan[k]!, t, grip[k]!]));

/** A measurement port that reports `axis` (or nothing while it is null) and counts its reads. */
function port(initial: readonly number[] | null) {
  const p = {
    axis: initial as readonly number[] | null,
    reads: 0,
    read: {
      axis: (out: Float64Array): boolean => {
        p.reads++;
        if (!p.axis) return false;
        out.set(p.axis);
        return true;
      },
    } satisfies HeldObjectAxis,
  };
  return p;
}

/** Records, per row while the constraint is on, the tilt the cone barrier predicts: acos(h/L + cos θ). */
class PredictedTilt implements ChunkFilter {
  readonly rows: number[][] = [];
  private readonly h = new Float64Array(1);
  constructor(
    readonly barrier: OrientationBarrier,
    readonly theta: number,
  ) {}
  filter(nominal: Float64Array, horizon: number): CbfOutcome {
    const tilts: number[] = [];
    if (this.barrier.enabled)
      for (let k = 0; k < horizon; k++) {
        const h = this.barrier.h(Float64Array.of(nominal[3 * k]!, nominal[3 * k + 1]!), this.h);
        tilts.push(Math.acos(Math.min(1, h / this.barrier.lever + Math.cos(this.theta))));
      }
    this.rows.push(tilts);
    return { ...newOutcome(), targets: nominal, minH: 0 };
  }
}

describe('held tilt: the reference from the object measured at the grasp', () => {
  it('hand-computed: an object gripped leaning 0.12 rad; each row of a held chunk predicts its tilt |α − t|', () => {
    const theta = 0.3;
    const alpha = 0.12;
    const barrier = new OrientationBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, theta, 1);
    const rec = new PredictedTilt(barrier, theta);
    const measured = port([0, Math.sin(alpha), Math.cos(alpha)]);
    const f = new HeldTiltFilter(rec, barrier, GRIP, 3, rec, measured.read);
    // approach, then the fingers close at row 2 with the tool upright: not measured yet (the
    // object is still standing; its tilt in the fingers comes as they close)
    f.filter(chunk([0, 0, 0, 0], [0, 0, 0, 0], [OPEN, OPEN, OPEN, OPEN]), 4, [0, 0, OPEN], 0.05);
    f.filter(chunk([0, 0, 0, 0], [0, 0, 0, 0], [OPEN, OPEN, CLOSED, CLOSED]), 4, [0, 0, OPEN], 0.05);
    expect(measured.reads).toBe(0);
    // filtered in two parts: rows 0–1 off, rows 2–3 on the tool pose's reference (upright)
    expect(rec.rows[1]).toEqual([]);
    expect(rec.rows[2]).toEqual([0, 0].map(() => expect.closeTo(0, 6)));
    // held from the chunk's start: measured at the present pose (tool upright, object leaning α)
    const pans = [0, 0.7, -1.1, 2.0, 0.3];
    const tilts = [0, 0.12, -0.15, 0.3, 0.05];
    f.filter(
      chunk(
        pans,
        tilts,
        tilts.map(() => CLOSED),
      ),
      5,
      [0, 0, CLOSED],
      0.05,
    );
    expect(measured.reads).toBe(1);
    expect(rec.rows[3]!.length).toBe(5);
    rec.rows[3]!.forEach((t, k) => expect(t).toBeCloseTo(Math.abs(alpha - tilts[k]!), 6));
    // fixed at the grasp: a later measurement (the object pivoted 0.2 rad more) changes nothing
    measured.axis = [0, Math.sin(0.32), Math.cos(0.32)];
    f.filter(
      chunk(
        pans,
        tilts,
        tilts.map(() => CLOSED),
      ),
      5,
      [0, 0.12, CLOSED],
      0.05,
    );
    expect(measured.reads).toBe(1);
    rec.rows[4]!.forEach((t, k) => expect(t).toBeCloseTo(Math.abs(alpha - tilts[k]!), 6));
  });

  it('measured at a pose where the tool is tilted: the object↔tool rotation, not the axis, is what is kept', () => {
    const theta = 0.3;
    const barrier = new OrientationBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, theta, 1);
    const rec = new PredictedTilt(barrier, theta);
    // the fingers close with the tool at tilt 0.2 (its z then (0, −sin 0.2, cos 0.2)); held, the
    // object is measured there leaning 0.05 along +y, (0, sin 0.05, cos 0.05) — 0.25 from the
    // tool's z about x, so at tilt t the object's z is cos(0.25 − t), its tilt |0.25 − t|
    const axis = [0, 2 * Math.sin(0.05), 2 * Math.cos(0.05)]; // any length
    const f = new HeldTiltFilter(rec, barrier, GRIP, 3, rec, port(axis).read);
    f.filter(chunk([0, 0], [0.2, 0.2], [OPEN, CLOSED]), 2, [0, 0.2, OPEN], 0.05);
    const tilts = [0.2, 0, 0.45, 0.3];
    f.filter(
      chunk(
        [0, 0.5, 1, -1],
        tilts,
        tilts.map(() => CLOSED),
      ),
      4,
      [0, 0.2, CLOSED],
      0.05,
    );
    // with the tool pose's reference (the object counted upright at 0.2): |t − 0.2| = 0, 0.2, 0.25, 0.1
    expect(rec.rows[2]!.map((t) => Number(t.toFixed(6)))).toEqual([0.05, 0.25, 0.2, 0.05]);
  });

  /** Hold-only check on the tilt polygon, the gripper column passed through. */
  function holdOnly(theta: number) {
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, theta, 1, 4);
    const check = new PassiveColumnsFilter(
      new HoldOnlyFilter(barrier, { qmin: [-3, -3], qmax: [3, 3], maxSpeed: [10, 10] }),
      2,
      3,
    );
    return { barrier, check };
  }

  /** Grasp (tool upright), then a held chunk that tilts the tool from 0 to `to`; the held chunk's status. */
  function heldChunk(theta: number, to: number, objectAxis: HeldObjectAxis | null): string {
    const { barrier, check } = holdOnly(theta);
    const f = new HeldTiltFilter(check, barrier, GRIP, 3, check, objectAxis);
    expect(f.filter(chunk([0, 0, 0], [0, 0, 0], [OPEN, CLOSED, CLOSED]), 3, [0, 0, OPEN], 0.05).status).toBe(
      'unchanged',
    );
    const tilts = [0.25, 0.5, 0.75, 1].map((s) => s * to);
    return f.filter(
      chunk(
        [0, 0, 0, 0],
        tilts,
        tilts.map(() => CLOSED),
      ),
      4,
      [0, 0, CLOSED],
      0.05,
    ).status;
  }

  it('fails on the tool-pose reference: a chunk that tips the leaning object past its limit is refused; one that levels it passes', () => {
    const theta = 0.25;
    const lean = 0.15; // the object sits 0.15 rad off upright in the fingers, the tool upright
    const axis = [0, Math.sin(lean), Math.cos(lean)];
    // tool to −0.12: the object to 0.27 > θ (the tool alone only 0.12, under the polygon's
    // asin(sin θ·cos 45°) = 0.176 along its face normal y — what the tool-pose reference checked)
    expect(heldChunk(theta, -0.12, port(axis).read)).toBe('unsafe');
    // tool to +0.25: the object to |0.15 − 0.25| = 0.10 < θ (the tool alone 0.25, past 0.176)
    expect(heldChunk(theta, 0.25, port(axis).read)).toBe('unchanged');
    // no measurement (none configured, or none usable): the tool-pose reference, as before
    expect(heldChunk(theta, -0.12, null)).toBe('unchanged');
    expect(heldChunk(theta, 0.25, null)).toBe('unsafe');
    expect(heldChunk(theta, -0.12, port(null).read)).toBe('unchanged');
  });

  it('no usable sample at the first held chunk: the tool-pose reference stays and the next held chunk measures; a new grasp measures anew', () => {
    const theta = 0.3;
    const barrier = new OrientationBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, theta, 1);
    const rec = new PredictedTilt(barrier, theta);
    const m = port(null);
    const f = new HeldTiltFilter(rec, barrier, GRIP, 3, rec, m.read);
    const held = (t: number) => chunk([0, 0], [t, t], [CLOSED, CLOSED]);
    f.filter(chunk([0, 0], [0, 0], [OPEN, CLOSED]), 2, [0, 0, OPEN], 0.05);
    f.filter(held(0.1), 2, [0, 0, CLOSED], 0.05); // stale: tool reference, tilt 0.1
    m.axis = [0, 0, 1]; // sampled upright while the tool is at 0.1 → the object leans −0.1 from the tool
    f.filter(held(0.1), 2, [0, 0.1, CLOSED], 0.05);
    f.filter(held(0.3), 2, [0, 0.1, CLOSED], 0.05);
    expect(rec.rows[2]![0]).toBeCloseTo(0.1, 6);
    expect(rec.rows[3]![0]).toBeCloseTo(0, 6);
    expect(rec.rows[4]![0]).toBeCloseTo(0.2, 6);
    // release, a new grasp with the tool at 0: the next held chunk measures again
    f.filter(chunk([0, 0], [0, 0], [OPEN, OPEN]), 2, [0, 0.3, CLOSED], 0.05);
    f.filter(chunk([0, 0], [0, 0], [OPEN, CLOSED]), 2, [0, 0, OPEN], 0.05);
    m.axis = [0, Math.sin(0.2), Math.cos(0.2)];
    f.filter(held(0.2), 2, [0, 0, CLOSED], 0.05);
    expect(rec.rows[7]![0]).toBeCloseTo(0, 6); // the grasp chunk's row after the grasp: tool pose, upright
    expect(rec.rows[8]![0]).toBeCloseTo(0, 6); // measured leaning 0.2, levelled by the tool's 0.2 (tool pose: 0.2)
    expect(m.reads).toBe(3);
  });

  it('refused, then rolled back: the measured reference comes back with the checkpoint', () => {
    const theta = 0.3;
    const barrier = new OrientationBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, theta, 1);
    const rec = new PredictedTilt(barrier, theta);
    const m = port([0, Math.sin(0.1), Math.cos(0.1)]);
    const f = new HeldTiltFilter(rec, barrier, GRIP, 3, rec, m.read);
    const held = (t: number) => chunk([0, 0], [t, t], [CLOSED, CLOSED]);
    f.filter(chunk([0, 0], [0, 0], [OPEN, CLOSED]), 2, [0, 0, OPEN], 0.05);
    f.filter(held(0), 2, [0, 0, CLOSED], 0.05); // measured: the object leans 0.1
    f.checkpoint();
    // a chunk filtered off the control thread that re-grasps (release, close) and is not played
    f.filter(chunk([0, 0], [0.2, 0.2], [OPEN, CLOSED]), 2, [0, 0, CLOSED], 0.05);
    f.rollback();
    f.filter(held(0.1), 2, [0, 0, CLOSED], 0.05);
    expect(rec.rows[rec.rows.length - 1]![0]).toBeCloseTo(0, 6); // 0.1 lean levelled by tilt 0.1
    expect(m.reads).toBe(1);
  });

  it('from a gripper state (no gripper column): measured at the first held chunk', () => {
    const theta = 0.3;
    const barrier = new OrientationBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, theta, 1);
    const rec: ChunkFilter & { tilts: number[] } = {
      tilts: [],
      filter(nominal, horizon) {
        const h = new Float64Array(1);
        if (barrier.enabled)
          for (let k = 0; k < horizon; k++)
            this.tilts.push(
              Math.acos(Math.min(1, barrier.h(nominal.slice(2 * k, 2 * k + 2), h) / barrier.lever + Math.cos(theta))),
            );
        return new PredictedTilt(barrier, theta).filter(nominal, 0);
      },
    };
    let held = false;
    const f = new HeldTiltFilter(
      rec,
      barrier,
      { held: () => held },
      2,
      rec,
      port([0, Math.sin(0.1), Math.cos(0.1)]).read,
    );
    f.filter(Float64Array.of(0, 0), 1, [0, 0], 0.05);
    held = true;
    f.filter(Float64Array.of(0.5, -0.2, 0, 0.1), 2, [0, 0], 0.05);
    expect(rec.tilts[0]).toBeCloseTo(0.3, 6);
    expect(rec.tilts[1]).toBeCloseTo(0, 6);
  });
});

describe('tilt polygon: a vertex toward a measured lean the fixed polygon leaves little room', () => {
  const theta = 0.2;
  const s = Math.sin(theta) * Math.SQRT1_2; // the face distance, sin θ·cos(π/4)
  const mk = () => new TiltPolygonBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, theta, 1, 4);

  /** The tool tilt t > 0 (sign −1: t < 0, returned as |t|) along y, pan 0, where the least h crosses 0. */
  function limitAlongY(barrier: TiltPolygonBarrier, sign: 1 | -1): number {
    const h = new Float64Array(barrier.faces);
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (barrier.h(Float64Array.of(0, sign * mid), h) > 0) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  // The object measured at the upright tool leaning a along −y: (0, −sin a, cos a). The tilt joint
  // turns it about x: at tool tilt t its z is the z of R_x(t)·(0, −sin a, cos a) = cos(t + a) — it
  // tilts t + a toward −y for t > −a, and |t + a| the other way.
  const lean = (a: number) => [0, -Math.sin(a), Math.cos(a)];

  it('upright or unmeasured: the fixed polygon, face normals ±x, ±y — along y it allows asin(s)', () => {
    const upright = mk();
    upright.captureReference([0, 0]);
    expect(limitAlongY(upright, 1)).toBeCloseTo(Math.asin(s), 9);
    expect(limitAlongY(upright, -1)).toBeCloseTo(Math.asin(s), 9);
  });

  it('leaning 0.12 rad along −y (past s/2 = 0.07 on the normal): a vertex along y — the object reaches the full θ both ways', () => {
    const b = mk();
    b.captureReference([0, 0], [0, 0, 1], lean(0.12));
    expect(limitAlongY(b, 1)).toBeCloseTo(theta - 0.12, 9);
    expect(limitAlongY(b, -1)).toBeCloseTo(theta + 0.12, 9);
  });

  it('leaning 0.05 rad (under s/2): the fixed polygon stays — the object reaches asin(s) along y', () => {
    const b = mk();
    b.captureReference([0, 0], [0, 0, 1], lean(0.05));
    expect(limitAlongY(b, 1)).toBeCloseTo(Math.asin(s) - 0.05, 9);
    expect(limitAlongY(b, -1)).toBeCloseTo(Math.asin(s) + 0.05, 9);
  });
});
