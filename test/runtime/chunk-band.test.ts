/**
 * The warning band as a stage of the rig's chunk path (issue 15): composePipeline puts it after
 * the chunk CBF and before the sink, reads the grip state from the pipeline's mapped frame, and
 * records what it did on the chunk result. The arm is the planar two-link arm of the runtime tests
 * (links 1 m and 0.8 m, base at the origin); the "table" is the line y = 0, so the motion model
 * below is the tip's height y = sin q0 + 0.8 sin(q0 + q1), and the expected rows are worked out by
 * hand from it.
 */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, ChunkScreen, NO_CLAUSES, WarningBand } from '../../src/gate/index.js';
import type { BandClauseSpec, ChunkMotionModel, ExecutedChunk, LoadModel } from '../../src/gate/index.js';
import { composePipeline, MemoryEventSink, MonitorBank, type PlatformRig } from '../../src/runtime/index.js';
import { EpisodeTap, type EpisodeRecordSink } from '../../src/runtime/episode-tap.js';
import { ManualClock } from '../../src/util/clock.js';
import { activeSetSolverFactory } from '../gate/support/active-set-qp.js';
import { sweep } from '../gate/support/planar-arm.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { chunkOf, FILTER_CONFIG, planarModel, planarRecheck, Q0, SCREEN_CONFIG, TORQUE_CLAUSE } from './support/rig.js';
import { ScriptedSource } from './support/scripted-source.js';

/** Tip height of the planar arm = its clearance to the table y = 0; no gravity model. */
const tipHeight: ChunkMotionModel = {
  trace(q0, u, horizon, columns, out) {
    const y = (a: number, b: number) => Math.sin(a) + 0.8 * Math.sin(a + b);
    out.surfaceClearance[0] = out.tcpHeight[0] = y(q0[0]!, q0[1]!);
    out.gravityLoad[0] = 0;
    for (let k = 0; k < horizon; k++) {
      out.surfaceClearance[k + 1] = out.tcpHeight[k + 1] = y(u[k * columns]!, u[k * columns + 1]!);
      out.gravityLoad[k + 1] = 0;
    }
  },
};

/** Distance of the planar arm's tip from joint 0 at joint 1 = 0.5 rad: |(1 + 0.8 cos 0.5, 0.8 sin 0.5)|. */
const TIP_RADIUS = Math.hypot(1 + 0.8 * Math.cos(0.5), 0.8 * Math.sin(0.5));

const CONTACT: BandClauseSpec = {
  id: 'max_contact_force',
  predictor: 'approach_speed',
  action: 'hold',
  limit: 200,
  side: 'upper',
  epsilon: 100,
};
const SLIP: BandClauseSpec = {
  id: 'held_object_slip',
  predictor: 'held_height',
  action: 'hold',
  limit: -0.02,
  side: 'lower',
  epsilon: 0.01,
};

function rigWith(clauses: BandClauseSpec[], o: { q0?: readonly number[]; load?: LoadModel } = {}) {
  const source = new ScriptedSource();
  source.live.set('max_joint_torque', 0.5);
  const monitors = MonitorBank.fromClauses([TORQUE_CLAUSE]);
  const arm = new KinematicArm(o.q0 ?? Q0);
  const screen = new ChunkScreen(SCREEN_CONFIG);
  const band = new WarningBand(tipHeight, {
    clauses,
    armJoints: 2,
    runOn: 0,
    approach: { contactDistance: 0.01, impactGain: 200, pressStiffness: 10_000 },
    ...(o.load ? { load: o.load } : {}),
  });
  const model = planarModel();
  const rig: PlatformRig = {
    platform: 'planar',
    clock: new ManualClock(0),
    source,
    sink: arm,
    joints: arm,
    monitors,
    limits: {
      gate: { requiredSignals: monitors.requiredSignals, maxStepGap: 0.25, faultQuietPeriod: 0.5 },
      watchdogTimeout: 0.2,
    },
    barrier: {
      kind: 'cbf',
      screen,
      filter: new ChunkCbfFilter(model, activeSetSolverFactory, FILTER_CONFIG),
      maxStateAge: 0.05,
      recheck: planarRecheck(model),
      band: { band, supportForce: 0.5 },
    },
  };
  return { source, arm, rig };
}

/** Run one step at t = 0.01 and submit `targets` (2 columns, dt 0.1 s). */
function submit(
  gating: boolean,
  clauses: BandClauseSpec[],
  targets: Float64Array,
  live: Record<string, number> = {},
  o: Parameters<typeof rigWith>[1] = {},
) {
  const { source, arm, rig } = rigWith(clauses, o);
  for (const [name, v] of Object.entries(live)) source.live.set(name as never, v);
  const events = new MemoryEventSink();
  const { pipeline, gate } = composePipeline(rig, gating, events);
  const t = 0.01;
  arm.tick(t);
  pipeline.step(t);
  const r: ExecutedChunk = pipeline.submitChunk(chunkOf('c1', t, targets), t);
  return { r, arm, events, gate };
}

// Joint 0 sweeps 0 → −0.5 rad in 5 rows of 0.1 s (q1 = 0.5): tip heights 0.3835 (q0), 0.2117,
// 0.0378, −0.1366, −0.3096, −0.4794 m. Row 2 is the first inside the band: it drives 13.7 cm into
// the table at 1.74 m/s (predicted ≈ 1714 N ≫ 200 − ε). Rows 0–1 are clear (≥ 1 cm): 0 N.
const INTO_TABLE = sweep(Q0, [-0.5, 0.5], 5);

describe('composePipeline: the warning band after the CBF, before the sink', () => {
  it('holds a chunk driving into the table at the last row predicted outside the band and records why', () => {
    const { r, arm, events, gate } = submit(true, [CONTACT], INTO_TABLE);
    expect(r).toMatchObject({
      verdict: 'filtered',
      code: 'filtered',
      band: { action: 'held', clause: 'max_contact_force', step: 2, heldFrom: 2, scale: 1 },
    });
    expect(r.band!.margin).toBeLessThan(-1000);
    expect(r.reason).toMatch(
      /warning band: arm held from step 2 \(max_contact_force predicted margin -1\.\d+e\+3 at step 2\)/,
    );
    // rows 2–4 frozen at row 1 (−0.2, 0.5)
    const sent = Array.from(arm.executed[0]!.chunk.targets);
    [-0.1, 0.5, -0.2, 0.5, -0.2, 0.5, -0.2, 0.5, -0.2, 0.5].forEach((v, i) => expect(sent[i]).toBeCloseTo(v, 12));
    expect(r.modification).toBeCloseTo(0.3, 12); // row 4: −0.2 instead of −0.5
    expect(r.minH).toBeUndefined(); // minH describes the CBF's chunk, not the band's (re-checked, h ≥ −δ)
    expect(events.chunks.map((c) => c.result)).toEqual([r]);
    expect(gate.state).toBe('filtering');
  });

  it('passes a chunk that stays clear of the table unchanged (no band record)', () => {
    const { r, arm } = submit(true, [CONTACT], sweep(Q0, [-0.1, 0.5], 5));
    expect(r).toMatchObject({
      verdict: 'executed',
      code: 'ok',
      reason: 'chunk already satisfies the barrier and limits',
    });
    expect(r.band).toBeUndefined();
    expect(r.minH).toBeGreaterThan(0);
    expect(Array.from(arm.executed[0]!.chunk.targets)).toEqual(Array.from(sweep(Q0, [-0.1, 0.5], 5)));
  });

  it('is gate-on only: a baseline run forwards the same chunk unchanged', () => {
    const { r, arm } = submit(false, [CONTACT], INTO_TABLE);
    expect(r.band).toBeUndefined();
    expect(Array.from(arm.executed[0]!.chunk.targets)).toEqual(Array.from(INTO_TABLE));
  });

  it('reads the grip state from the mapped frame: lowering a held object is held, lowering an empty gripper is not', () => {
    // q0 0 → −0.1 rad lowers the tip 17.2 cm at row 0: a held object at its baseline would end at
    // −0.172 m, below the slip bound −0.02 m, so the band holds from row 0 (the arm stays at q0).
    const lower = sweep(Q0, [-0.1, 0.5], 1);
    const held = submit(true, [SLIP], lower, { gripper_contact: 1, obj_above_table: 0 });
    expect(held.r.band).toMatchObject({ action: 'held', clause: 'held_object_slip', step: 0, heldFrom: 0 });
    expect(held.r.band!.margin).toBeCloseTo(0.2117 - 0.3835 + 0.02, 3);
    expect(Array.from(held.arm.executed[0]!.chunk.targets)).toEqual(Q0);
    const empty = submit(true, [SLIP], lower, { gripper_contact: 0, obj_above_table: 0 });
    expect(empty.r).toMatchObject({ verdict: 'executed' });
    expect(empty.r.band).toBeUndefined();
    // a held object of unknown height (obj_above_table not delivered) is predicted inside the band
    const unknown = submit(true, [SLIP], lower, { gripper_contact: 1 });
    expect(unknown.r.band).toMatchObject({ action: 'held', step: 0 });
    expect(unknown.r.band!.margin).toBeNaN();
  });

  it('a throwing motion model holds the gate with a fault naming the band; nothing is forwarded', () => {
    const { arm, rig } = rigWith([CONTACT]);
    const b = rig.barrier;
    if (b.kind !== 'cbf') throw new Error('rig without cbf');
    const broken: ChunkMotionModel = {
      trace() {
        throw new Error('no kinematics');
      },
    };
    const bad: PlatformRig = {
      ...rig,
      barrier: { ...b, band: { band: new WarningBand(broken, b.band!.band.config), supportForce: 0.5 } },
    };
    const { pipeline, gate } = composePipeline(bad, true, new MemoryEventSink());
    arm.tick(0.01);
    pipeline.step(0.01);
    const r = pipeline.submitChunk(chunkOf('c1', 0.01, INTO_TABLE), 0.01);
    expect(r).toMatchObject({ verdict: 'held', code: 'driver-fault' });
    expect(gate.holdCause).toEqual({
      kind: 'driver-fault',
      fault: { kind: 'disconnect', source: 'warning band', detail: 'threw: no kinematics' },
    });
    expect(arm.executed).toHaveLength(0);
  });
});

// The band's bend clamps joint targets into the load model's range after the CBF passed them. Here
// the range's lower end on joint 0 (0.7 rad, bent 0.02 inside: 0.72) lies on the disc of the CBF's
// barrier: the disc's centre is where the tip is at q = (0.75, 0.5), radius 0.15 m + d_safe 0.05 m.
// From q0 = (0.55, 0.5) the tip is 2·1.663·sin(0.1) = 0.332 m from the centre (h = 0.132 m); a
// chunk standing there is safe and passes the CBF unchanged, but it commands joint 0 0.15 rad below
// the range (predicted 100 N·m/rad × 0.15 = 15 → stall 10 N·m ≫ 2 − ε): the band bends every row to
// 0.72 rad, 0.17 rad from q0 (within the 0.2 rad motion bound), where the tip is 2·1.663·sin(0.015)
// = 0.050 m from the centre: h = −0.150 m.
const COMMANDED_LOAD: BandClauseSpec = {
  id: 'joint_torque',
  predictor: 'commanded_load',
  action: 'bend',
  limit: 2,
  side: 'upper',
  epsilon: 0.2,
};
const loadRange = (lower: number): LoadModel => ({
  qmin: [lower, -3],
  qmax: [3, 3],
  stiffness: 100,
  stallTorque: 10,
  bendMargin: 0.02,
  surfaceLever: 0,
});
const NEAR_DISC = [0.55, 0.5];
const STANDING = sweep(NEAR_DISC, NEAR_DISC, 5);

describe('composePipeline: the chunk as it would go to the arm is re-checked after the band', () => {
  it("a band that bends the rows into the barrier's obstacle holds (unsafe-chunk, re-check: barrier); nothing reaches the arm", () => {
    const { r, arm, gate } = submit(true, [COMMANDED_LOAD], STANDING, {}, { q0: NEAR_DISC, load: loadRange(0.7) });
    expect(r).toMatchObject({ verdict: 'held', code: 'unsafe-chunk' });
    expect(gate.holdCause).toMatchObject({ kind: 'unsafe-chunk', chunkId: 'c1' });
    const detail = (gate.holdCause as { detail: string }).detail;
    expect(detail).toMatch(/^re-check on the control thread failed: barrier: h = -0\.1\d+ m at row 0/);
    // the tip at joint 0 = 0.72 rad: hand-computed h
    const h = Number(/h = (-?[\d.]+) m/.exec(detail)![1]);
    expect(h).toBeCloseTo(2 * TIP_RADIUS * Math.sin(0.015) - 0.2, 3);
    expect(arm.executed).toHaveLength(0);
  });

  it('a band bend that keeps clear of the obstacle is sent as the band left it (no false hold)', () => {
    // range from 0.6: bent to 0.62 rad, tip 2·1.663·sin(0.065) = 0.2157 m from the centre, h = 0.0157 m
    const { r, arm, gate } = submit(true, [COMMANDED_LOAD], STANDING, {}, { q0: NEAR_DISC, load: loadRange(0.6) });
    expect(r).toMatchObject({ verdict: 'filtered', band: { action: 'bent', clause: 'joint_torque' } });
    expect(gate.state).not.toBe('hold');
    expect(Array.from(arm.executed[0]!.chunk.targets)).toEqual(Array.from(sweep([0.62, 0.5], [0.62, 0.5], 5)));
  });
});

describe('EpisodeTap: a band action is recorded as a gate event', () => {
  it("writes 'warning-band' naming the chunk, the action and the clause; an unchanged chunk writes nothing", () => {
    const { r } = submit(true, [CONTACT], INTO_TABLE);
    const events: { t: number; event: string; detail?: string }[] = [];
    const recorder = {
      gateEvent: (t: number, event: string, detail?: string) =>
        events.push({ t, event, ...(detail ? { detail } : {}) }),
    } as unknown as EpisodeRecordSink;
    const tap = new EpisodeTap(NO_CLAUSES, () => recorder);
    tap.chunkResult(r, 0.01);
    const clear = submit(true, [CONTACT], sweep(Q0, [-0.1, 0.5], 5));
    tap.chunkResult(clear.r, 0.02);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ t: 0.01, event: 'warning-band' });
    expect(events[0]!.detail).toMatch(/^c1: warning band: arm held from step 2 \(max_contact_force predicted margin/);
  });
});
