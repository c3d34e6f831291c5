/**
 * The held-tilt switch: the orientation constraint follows the gripper COMMAND in the chunk, not
 * the contact signal, and its reference is the tool's pose at the grasp row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CbfOutcome, ChunkFilter } from '../../src/gate/index.js';
import { GraspTrack, HeldTiltFilter, commandsClosed, tiltPlanning, toolTiltLimit } from '../../src/gate/held-tilt.js';
import { TiltPolygonBarrier } from '../../src/gate/orientation-barrier.js';
import { CommitRecheck } from '../../src/gate/chunk-recheck.js';
import { newOutcome } from '../../src/gate/filter-common.js';
import { ForwardKinematics } from '../../src/kinematics/index.js';
import { PAN_TILT_CHAIN } from './support/pan-tilt.js';

const CHAIN = PAN_TILT_CHAIN;
const OPEN = 1;
const CLOSED = 0;

/** Records whether the constraint was on, the reference's tool direction, the rows and the start at every call. */
class Recorder implements ChunkFilter {
  readonly calls: { enabled: boolean; local: number[]; horizon: number; q0: number[]; rows: number[] }[] = [];
  constructor(readonly barrier: TiltPolygonBarrier) {}
  filter(nominal: Float64Array, horizon: number, q0: ArrayLike<number>): CbfOutcome {
    this.calls.push({
      enabled: this.barrier.enabled,
      local: Array.from(this.barrier.local),
      horizon,
      q0: Array.from(q0),
      rows: Array.from(nominal),
    });
    return { ...newOutcome(), targets: nominal, minH: 0 };
  }
}

/** A 4-row chunk of 3 columns (pan, tilt, gripper): `tilt` per row, `grip` per row. */
const chunk = (tilt: number[], grip: number[]): Float64Array =>
  Float64Array.from(tilt.flatMap((t, k) => [0, t, grip[k]!]));

describe('HeldTiltFilter', () => {
  const setup = () => {
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
    const rec = new Recorder(barrier);
    const f = new HeldTiltFilter(rec, barrier, { column: 2, open: OPEN, closed: CLOSED }, 3);
    return { barrier, rec, f };
  };

  it('off while the chunk starts open; on from the grasp row with the pose before it as the reference; off after the release', () => {
    const { rec, f } = setup();
    f.filter(chunk([0, 0, 0, 0], [OPEN, OPEN, OPEN, OPEN]), 4, [0, 0, OPEN], 0.05);
    // the gripper closes at row 2 with the tool tilted 0.3 rad: that pose is the reference, and the
    // chunk's rows from the grasp on are constrained (two calls: rows 0–1 off, rows 2–3 on)
    f.filter(chunk([0.3, 0.3, 0.3, 0.3], [OPEN, OPEN, CLOSED, CLOSED]), 4, [0, 0.3, OPEN], 0.05);
    f.filter(chunk([0.3, 0.35, 0.4, 0.4], [CLOSED, CLOSED, CLOSED, CLOSED]), 4, [0, 0.3, CLOSED], 0.05);
    // release at row 1: the chunk started closed, so the constraint holds to its end
    f.filter(chunk([0.3, 0.3, 0.3, 0.3], [CLOSED, OPEN, OPEN, OPEN]), 4, [0, 0.3, CLOSED], 0.05);
    // the fingers may still touch the placed object (gripper_contact true): the command says open → off
    f.filter(chunk([0.3, 0.6, 0.9, 0.9], [OPEN, OPEN, OPEN, OPEN]), 4, [0, 0.3, OPEN], 0.05);
    expect(rec.calls.map((c) => c.enabled)).toEqual([false, false, true, true, true, false]);
    expect(rec.calls.map((c) => c.horizon)).toEqual([4, 2, 2, 4, 4, 4]);
    // tool direction that was world-vertical at the grasp: rotate ẑ back by the 0.3 rad tilt
    const local = rec.calls[2]!.local;
    expect(local[0]).toBeCloseTo(0, 12);
    expect(Math.abs(local[1]!)).toBeCloseTo(Math.sin(0.3), 12);
    expect(local[2]).toBeCloseTo(Math.cos(0.3), 12);
    expect(rec.calls[3]!.local).toEqual(local);
  });

  it('a chunk that starts held, lets go and grasps again part-way: the rows up to the release are held too, from the grasp they started with', () => {
    const { rec, f } = setup();
    // grasp at row 0 with the tool upright (the reference), then a chunk that tips the still-held
    // object 0.3 rad at rows 0–1, opens at row 2 and closes again at row 3
    f.filter(chunk([0, 0, 0, 0], [CLOSED, CLOSED, CLOSED, CLOSED]), 4, [0, 0, CLOSED], 0.05);
    f.filter(chunk([0.3, 0.3, 0.3, 0.3], [CLOSED, CLOSED, OPEN, CLOSED]), 4, [0, 0, CLOSED], 0.05);
    // rows 0–2 with the faces on from the upright grasp (before: off — the held rows went unbounded),
    // row 3 on from the new grasp's pose (row 2's, tilt 0.3)
    expect(rec.calls.map((c) => [c.enabled, c.horizon])).toEqual([
      [true, 4],
      [true, 3],
      [true, 1],
    ]);
    [0, 0, 1].forEach((v, i) => expect(rec.calls[1]!.local[i]).toBeCloseTo(v, 12));
    expect(rec.calls[2]!.local[2]).toBeCloseTo(Math.cos(0.3), 12);
    // the control thread's re-check bounds the same rows: a chunk the filter passed tipping the
    // held object 0.3 rad before the release holds (held-tilt at row 0), not only the rows after
    const track = new GraspTrack({ column: 2, open: OPEN, closed: CLOSED }, 2, 3);
    const grasp = chunk([0, 0, 0, 0], [CLOSED, CLOSED, CLOSED, CLOSED]);
    expect(track.tiltRows(grasp, grasp, 4, [0, 0, CLOSED])?.from).toBe(0);
    track.commit(grasp, 4);
    const regrasp = chunk([0.3, 0.3, 0.3, 0.3], [CLOSED, CLOSED, OPEN, CLOSED]);
    expect(track.tiltRows(regrasp, regrasp, 4, [0, 0, CLOSED])?.from).toBe(3);
    expect(track.lead).toBe(true);
    const faces = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
    const recheck = new CommitRecheck(
      {
        barrier: faces,
        qmin: [-3, -3],
        qmax: [3, 3],
        maxSpeed: [10, 10],
        planningMargin: 0,
        gamma: 0.2,
        heldTilt: { barrier: faces, gripper: { column: 2, open: OPEN, closed: CLOSED } },
      },
      3,
    );
    expect(recheck.check(grasp, grasp, grasp, 4, 0.05, [0, 0, CLOSED], [0, 0, CLOSED])).toBeNull();
    recheck.committed();
    expect(recheck.check(regrasp, regrasp, regrasp, 4, 0.05, [0, 0, CLOSED], [0, 0, CLOSED])).toMatchObject({
      check: 'held-tilt',
      detail: expect.stringMatching(/at row 0 /),
    });
  });

  it('a grasp part-way: the rows after it are filtered with the constraint on, from the rows before it as played', () => {
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
    // the inner filter bends the approach (rows before the grasp) to tilt 0.2 and passes the rest
    const calls: { enabled: boolean; horizon: number; q0: number[]; rows: number[] }[] = [];
    const inner: ChunkFilter = {
      filter(nominal, horizon, q0) {
        calls.push({ enabled: barrier.enabled, horizon, q0: Array.from(q0), rows: Array.from(nominal) });
        const bent = barrier.enabled ? nominal : Float64Array.from(nominal, (v, i) => (i % 3 === 1 ? 0.2 : v));
        return {
          status: barrier.enabled ? 'unchanged' : 'filtered',
          targets: bent,
          slackUsed: barrier.enabled ? 0 : 1e-9,
          modification: barrier.enabled ? 0 : 0.2,
          minH: barrier.enabled ? 0.5 : 0.7,
          minHStep: barrier.enabled ? 0 : 1,
          cbfViolation: 0,
          rounds: 1,
          iterations: 5,
          detail: '',
        };
      },
    };
    const f = new HeldTiltFilter(inner, barrier, { column: 2, open: OPEN, closed: CLOSED }, 3);
    // descend (tilt 0) and close at row 3, then lift tilting the tool 0.5 rad
    const nominal = chunk([0, 0, 0, 0.5, 0.5], [OPEN, OPEN, OPEN, CLOSED, CLOSED]);
    const o = f.filter(nominal, 5, [0, 0, OPEN], 0.05);
    expect(calls.map((c) => [c.enabled, c.horizon])).toEqual([
      [false, 3],
      [true, 2],
    ]);
    // the second part starts where the first part's last row puts the arm (bent to 0.2), gripper included
    expect(calls[1]!.q0).toEqual([0, 0.2, OPEN]);
    expect(calls[1]!.rows).toEqual(Array.from(nominal.subarray(9)));
    // the reference is that row's pose: the tool direction vertical at tilt 0.2
    expect(barrier.local[2]).toBeCloseTo(Math.cos(0.2), 12);
    expect(o.status).toBe('filtered');
    expect(Array.from(o.targets)).toEqual([0, 0.2, OPEN, 0, 0.2, OPEN, 0, 0.2, OPEN, 0, 0.5, CLOSED, 0, 0.5, CLOSED]);
    expect(o.minH).toBe(0.5);
    expect(o.minHStep).toBe(3); // step 0 of the second part
    expect(o.modification).toBe(0.2);
    expect(o.rounds).toBe(2);
    expect(o.iterations).toBe(10);
    expect(barrier.enabled).toBe(false);
  });

  it('a grasp part-way whose rows after it cannot be made safe: refused with the grasp step named, no reference kept', () => {
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
    const enabled: boolean[] = [];
    const inner: ChunkFilter = {
      filter(nominal) {
        enabled.push(barrier.enabled);
        return {
          status: barrier.enabled ? 'unsafe' : 'unchanged',
          targets: nominal,
          slackUsed: 0,
          modification: 0,
          minH: barrier.enabled ? -0.1 : 0.5,
          minHStep: barrier.enabled ? 1 : -1,
          cbfViolation: 0,
          rounds: 1,
          iterations: 1,
          detail: barrier.enabled ? 'h = -0.1 < 0 at step 1 after 3 round(s)' : '',
        };
      },
    };
    const f = new HeldTiltFilter(inner, barrier, { column: 2, open: OPEN, closed: CLOSED }, 3);
    const o = f.filter(chunk([0, 0, 0.5, 0.9], [OPEN, CLOSED, CLOSED, CLOSED]), 4, [0, 0.3, OPEN], 0.05);
    expect(o.status).toBe('unsafe');
    expect(o.detail).toBe('after the grasp at step 1: h = -0.1 < 0 at step 1 after 3 round(s)');
    expect(o.minHStep).toBe(2);
    // the arm did not grasp: the next chunk, closed from its start, references the present pose
    f.filter(chunk([0.4, 0.4, 0.4, 0.4], [CLOSED, CLOSED, CLOSED, CLOSED]), 4, [0, 0.4, CLOSED], 0.05);
    expect(enabled).toEqual([false, true, true]);
    expect(barrier.local[2]).toBeCloseTo(Math.cos(0.4), 12);
  });

  it('closed from the first chunk with no grasp seen: the reference is the present pose; reset forgets it', () => {
    const { barrier, rec, f } = setup();
    f.filter(chunk([0.2, 0.2, 0.2, 0.2], [CLOSED, CLOSED, CLOSED, CLOSED]), 4, [0, 0.2, CLOSED], 0.05);
    expect(rec.calls[0]!.enabled).toBe(true);
    expect(rec.calls[0]!.local[2]).toBeCloseTo(Math.cos(0.2), 12);
    expect(barrier.enabled).toBe(false); // off between chunks
    f.reset();
    f.filter(chunk([0, 0, 0, 0], [OPEN, OPEN, OPEN, OPEN]), 4, [0, 0, OPEN], 0.05);
    expect(rec.calls[1]!.enabled).toBe(false);
  });

  it('from a gripper state (no gripper column): on while held, reference the present pose where the hold began, forgotten at a release', () => {
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
    const rec = new Recorder(barrier);
    let held = false;
    // a 2-column chunk (pan, tilt): the state is the only grip there is
    const f = new HeldTiltFilter(rec, barrier, { held: () => held }, 2);
    const rows = (tilt: number): Float64Array => Float64Array.from([0, tilt, 0, tilt]);
    f.filter(rows(0.1), 2, [0, 0.1], 0.05);
    held = true;
    f.filter(rows(0.3), 2, [0, 0.3], 0.05); // the hold begins with the tool tilted 0.3 rad
    f.filter(rows(0.5), 2, [0, 0.45], 0.05); // still held: the reference stays the 0.3 rad pose
    held = false;
    f.filter(rows(0.5), 2, [0, 0.5], 0.05);
    held = true;
    f.filter(rows(0.5), 2, [0, 0.5], 0.05); // a new grasp: the present pose
    expect(rec.calls.map((c) => c.enabled)).toEqual([false, true, true, false, true]);
    expect(rec.calls[1]!.local[2]).toBeCloseTo(Math.cos(0.3), 12);
    expect(rec.calls[2]!.local[2]).toBeCloseTo(Math.cos(0.3), 12);
    expect(rec.calls[4]!.local[2]).toBeCloseTo(Math.cos(0.5), 12);
    expect(barrier.enabled).toBe(false); // off between chunks
  });

  it('from a gripper state with the close row the chunk commands: a close at row g > 0 splits the chunk, the pose before it the reference; at row 0 held from the first row', () => {
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
    const rec = new Recorder(barrier);
    let closeRow = 2;
    const f = new HeldTiltFilter(rec, barrier, { held: () => false, closeRow: () => closeRow }, 2);
    // pan 0, the tool tilting 0.1, 0.2 (the pose before the close), then 0.4, 0.6 after it
    const out = f.filter(Float64Array.from([0, 0.1, 0, 0.2, 0, 0.4, 0, 0.6]), 4, [0, 0], 0.05);
    expect(out.status).toBe('unchanged');
    expect(rec.calls.map((c) => [c.enabled, c.horizon, c.q0])).toEqual([
      [false, 2, [0, 0]],
      [true, 2, [0, 0.2]],
    ]);
    expect(rec.calls[1]!.rows).toEqual([0, 0.4, 0, 0.6]);
    expect(rec.calls[1]!.local[2]).toBeCloseTo(Math.cos(0.2), 12);
    closeRow = 0;
    f.filter(Float64Array.from([0, 0.3, 0, 0.3]), 2, [0, 0.3], 0.05);
    expect(rec.calls[2]!.enabled).toBe(true);
    expect(rec.calls[2]!.local[2]).toBeCloseTo(Math.cos(0.2), 12); // the split's reference is kept
    closeRow = -1;
    f.filter(Float64Array.from([0, 0.3, 0, 0.3]), 2, [0, 0.3], 0.05);
    expect(rec.calls[3]!.enabled).toBe(false); // not held, no close: off, the reference forgotten
    expect(barrier.enabled).toBe(false);

    // the control thread's re-check (GraspTrack) bounds the same rows from the same reference
    closeRow = 2;
    const track = new GraspTrack({ held: () => false, closeRow: () => closeRow }, 2, 2);
    const rows = Float64Array.from([0, 0.1, 0, 0.2, 0, 0.4, 0, 0.6]);
    const span = track.tiltRows(rows, rows, 4, [0, 0]);
    expect(span && { from: span.from, pose: Array.from(span.pose) }).toEqual({ from: 2, pose: [0, 0.2] });
    track.commit(rows, 4);
    expect(Array.from(track.reference.pose!)).toEqual([0, 0.2]);
    closeRow = 0;
    const held = track.tiltRows(rows.subarray(0, 4), rows.subarray(0, 4), 2, [0, 0.6]);
    expect(held && { from: held.from, pose: Array.from(held.pose) }).toEqual({ from: 0, pose: [0, 0.2] });
    closeRow = -1;
    expect(track.tiltRows(rows, rows, 4, [0, 0])).toBeNull();
  });

  it('a loose grasp (command short of closed, past halfway) counts as held; limits and gains are checked', () => {
    expect(commandsClosed({ column: 0, open: OPEN, closed: CLOSED }, 0.3)).toBe(true);
    expect(commandsClosed({ column: 0, open: OPEN, closed: CLOSED }, 0.6)).toBe(false);
    expect(commandsClosed({ column: 0, open: OPEN, closed: CLOSED }, NaN)).toBe(false);
    expect(toolTiltLimit(0.2, 2)).toBeCloseTo(0.1, 15);
    expect(() => toolTiltLimit(0.2, 0.5)).toThrow(/pivot gain/);
    expect(() => toolTiltLimit(0, 2)).toThrow(/object limit/);
    const { barrier } = setup();
    expect(() => new HeldTiltFilter(new Recorder(barrier), barrier, { column: 3, open: 1, closed: 0 }, 3)).toThrow(
      /gripper column/,
    );
  });

  it('tiltPlanning: the faces plan the tool α inside its limit and the planning margin δ reaches exactly the limit', () => {
    const limit = 0.12;
    const alpha = (0.5 * Math.PI) / 180;
    const delta = 0.003;
    const p = tiltPlanning(limit, 4, delta, alpha, 10);
    expect(p.maxTilt).toBeCloseTo(limit - alpha, 15);
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, p.maxTilt, p.lever, 4);
    barrier.captureReference([0, 0]);
    const h = new Float64Array(4);
    // tilt the tool along a face normal (pan 0 tilts it along y; the faces' normals are ±x, ±y)
    // and find where the face's h crosses 0 and −δ: h = L(s − sin t), s = sin θ·cos(π/4), the
    // polygon being inscribed in the θ cone (along a normal it allows asin(sin θ·cos(π/4)))
    const minH = (tilt: number): number => barrier.h(Float64Array.of(0, tilt), h);
    const crossing = (level: number): number => {
      let lo = 0;
      let hi = 0.5;
      for (let i = 0; i < 60; i++) {
        const mid = (lo + hi) / 2;
        if (minH(mid) > level) lo = mid;
        else hi = mid;
      }
      return lo;
    };
    const c = Math.cos(Math.PI / 4);
    expect(crossing(0)).toBeCloseTo(Math.asin(Math.sin(limit - alpha) * c), 9);
    expect(crossing(-delta)).toBeCloseTo(Math.asin(Math.sin(limit) * c), 9);
    // no margin: the limit and the given lever
    expect(tiltPlanning(limit, 4, 0, alpha, 10)).toEqual({ maxTilt: limit, lever: 10 });
    expect(tiltPlanning(limit, 4, delta, 0, 10)).toEqual({ maxTilt: limit, lever: 10 });
    expect(() => tiltPlanning(limit, 4, delta, limit, 10)).toThrow(/angular margin/);
    expect(() => tiltPlanning(limit, 4, -1, alpha, 10)).toThrow(/planning margin/);
  });
});

describe("GraspTrack: the control thread's grasp reference and tilt rows are the filter's", () => {
  it('over random gripper sequences and measurements, the rows it bounds and the reference it keeps are those HeldTiltFilter used', () => {
    const row = fc.tuple(fc.double({ min: -0.5, max: 0.5, noNaN: true }), fc.constantFrom(OPEN, CLOSED, 0.4, 0.6));
    // the held object's axis sampled for a chunk (a lean about x), or none
    const sample = fc.option(fc.double({ min: -0.3, max: 0.3, noNaN: true }), { nil: null });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(row, { minLength: 1, maxLength: 5 }), sample), { minLength: 1, maxLength: 8 }),
        (chunks) => {
          const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
          const rec = new Recorder(barrier);
          const grip = { column: 2, open: OPEN, closed: CLOSED };
          const f = new HeldTiltFilter(rec, barrier, grip, 3);
          const track = new GraspTrack(grip, 2, 3);
          let q0 = [0, 0, OPEN];
          let lastClosed = false;
          let measuredThisGrasp = false;
          for (const [rows, lean] of chunks) {
            const nominal = Float64Array.from(rows.flatMap(([t, g]) => [0, t, g]));
            const axis = lean === null ? null : [0, Math.sin(lean), Math.cos(lean)];
            const port = axis === null ? null : { axis: (out: Float64Array) => (out.set(axis), true) };
            const wasMeasured = track.isMeasured;
            const closed0 = rows[0]![1] === CLOSED || rows[0]![1] === 0.4;
            f.restoreGrasp(track.reference, axis);
            rec.calls.length = 0;
            const o = f.filter(nominal, rows.length, q0, 0.05);
            const span = track.tiltRows(nominal, o.targets, rows.length, q0, port);
            // the rows the filter filtered with the faces on, and the reference they were on from
            const on = rec.calls.filter((c) => c.enabled);
            if (span === null) expect(on).toHaveLength(0);
            else {
              // a chunk that starts held and lets go before grasping again: its lead rows too
              const lead = track.lead;
              expect(on).toHaveLength(lead ? 2 : 1);
              const check = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
              if (lead) {
                expect(on[0]!.horizon).toBe(span.from);
                track.captureLead(check);
                on[0]!.local.forEach((v, i) => expect(v).toBeCloseTo(check.local[i]!, 12));
              }
              const last = on[on.length - 1]!;
              expect(last.horizon).toBe(rows.length - span.from);
              check.captureReference(span.pose, [0, 0, 1], span.axis ?? undefined);
              last.local.forEach((v, i) => expect(v).toBeCloseTo(check.local[i]!, 12));
            }
            // the lead: exactly where the chunk starts closed, was closed before, and grasps part-way
            expect(track.lead).toBe(span !== null && span.from > 0 && closed0 && lastClosed);
            // a new measurement only where the object was in the hand before the chunk (its first
            // row and the last committed one closed), none yet this grasp, and a sample was there
            // held throughout (a chunk that releases and grasps again is a new grasp part-way)
            const allClosed = rows.every(([, g]) => g === CLOSED || g === 0.4);
            const newlyMeasured = span !== null && span.axis !== null && !wasMeasured;
            if (newlyMeasured) {
              expect(closed0 && lastClosed && axis !== null && span.from === 0).toBe(true);
              expect(Array.from(span.pose)).toEqual(q0.slice(0, 2));
            } else if (allClosed && lastClosed && axis !== null && !measuredThisGrasp) expect(wasMeasured).toBe(true);
            track.commit(o.targets, rows.length);
            const mine = track.reference;
            const its = f.graspReference();
            expect(Object.is(mine.lastGrip, its.lastGrip)).toBe(true);
            expect(mine.pose === null ? null : Array.from(mine.pose)).toEqual(
              its.pose === null ? null : Array.from(its.pose),
            );
            expect(mine.axis === null ? null : Array.from(mine.axis)).toEqual(
              its.axis === null ? null : Array.from(its.axis),
            );
            measuredThisGrasp = mine.axis !== null;
            const last = rows[rows.length - 1]![1];
            lastClosed = last === CLOSED || last === 0.4;
            q0 = Array.from(nominal.subarray(nominal.length - 3));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a filter set to a reference continues from it: a chunk held from its first row is bounded from the grasp, not from the present pose', () => {
    const barrier = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), 3, 0.1, 10);
    const rec = new Recorder(barrier);
    const f = new HeldTiltFilter(rec, barrier, { column: 2, open: OPEN, closed: CLOSED }, 3);
    // a fresh filter (as a worker started again) told the grasp was at tilt 0, the arm now at 0.05
    f.restoreGrasp({ lastGrip: CLOSED, pose: Float64Array.of(0, 0), axis: null });
    f.filter(chunk([0.05, 0.1, 0.15, 0.2], [CLOSED, CLOSED, CLOSED, CLOSED]), 4, [0, 0.05, CLOSED], 0.05);
    expect(rec.calls).toHaveLength(1);
    expect(rec.calls[0]!.enabled).toBe(true);
    // the reference direction is the tool's z at tilt 0: world vertical in the tool frame
    [0, 0, 1].forEach((v, i) => expect(rec.calls[0]!.local[i]).toBeCloseTo(v, 12));
    expect(f.graspReference()).toEqual({ lastGrip: CLOSED, pose: Float64Array.of(0, 0), axis: null });
  });
});
