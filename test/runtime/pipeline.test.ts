import { describe, expect, it } from 'vitest';
import type { QpSolverFactory } from '../../src/gate/index.js';
import { activeSetSolverFactory } from '../gate/support/active-set-qp.js';
import { sweep } from '../gate/support/planar-arm.js';
import { chunkOf, Q0, rig, runSteps } from './support/rig.js';

const DT = 0.001; // 1 kHz

function run(r: ReturnType<typeof rig>, from: number, steps: number): number {
  return runSteps(r, from, steps, DT);
}

describe('Pipeline: source → monitors → gate → sink', () => {
  it('stays armed with fresh, safe samples and sends a heartbeat every cycle', () => {
    const r = rig();
    r.source.live.set('max_joint_torque', 1);
    run(r, 0, 100);
    expect(r.gate.state).toBe('armed');
    expect(r.arm.heartbeats).toHaveLength(100);
    expect(r.arm.holds).toHaveLength(0);
  });

  it('warns inside the soft band and holds on a violation, commanding the present position once', () => {
    const r = rig({ openGripperOnHold: true });
    r.source.live.set('max_joint_torque', 1.85); // ρ/τ = 0.075 < ε = 0.2/2
    const t = run(r, 0, 5);
    expect(r.gate.state).toBe('warning');
    r.source.live.set('max_joint_torque', 2.1);
    run(r, t + DT, 5);
    expect(r.gate.state).toBe('hold');
    expect(r.arm.holds).toHaveLength(1);
    expect(r.arm.holds[0]!.reason).toMatch(/clause joint_torque violated/);
    expect(Array.from(r.arm.holds[0]!.at)).toEqual(Q0);
    expect(r.arm.gripperOpened).toBe(1);
    expect(r.events.events.map((e) => e.to)).toEqual(['warning', 'hold']);
    expect(r.gate.holdCause).toMatchObject({ kind: 'violation', clause: 'joint_torque' });
    expect((r.gate.holdCause as { margin: number }).margin).toBeCloseTo(-0.05, 12);
  });

  // The STL monitor currently decides such a violation one sample after the violating one (it knows
  // at that sample already); the gate acts on the monitor's first report, long before the 0.2 s horizon.
  it('holds on a bounded-future clause as soon as its violation is certain, not at its horizon', () => {
    const r = rig({
      clauses: [
        {
          clause: { id: 'torque_window' },
          formula: 'always (always[0:0.2] (max_joint_torque < 2))',
          tau: 2,
          warn: 0.2,
        },
      ],
    });
    r.source.live.set('max_joint_torque', 1);
    const t = run(r, 0, 300);
    expect(r.gate.state).toBe('armed');
    r.source.live.set('max_joint_torque', 2.5);
    r.pipeline.step(t + DT);
    r.pipeline.step(t + 2 * DT);
    expect(r.gate.state).toBe('hold');
    expect(r.events.events[0]!.t).toBeLessThanOrEqual(t + 2 * DT);
    expect(r.gate.holdCause).toMatchObject({ clause: 'torque_window' });
  });

  it('holds on a stale required signal', () => {
    const r = rig({ watchdogTimeout: 1 });
    r.source.live.set('max_joint_torque', 1);
    r.source.live.set('contact_force_max', 0);
    const t = run(r, 0, 10);
    r.source.live.set('max_joint_torque', undefined); // stops refreshing; maxAge 0.05 s
    run(r, t + DT, 60);
    expect(r.gate.holdCause).toMatchObject({ kind: 'stale-signal', signal: 'max_joint_torque' });
    expect(r.arm.holds).toHaveLength(1);
  });

  it('holds on a NaN sample', () => {
    const r = rig();
    r.source.live.set('max_joint_torque', NaN);
    r.pipeline.step(0);
    expect(r.gate.holdCause).toMatchObject({ kind: 'invalid-sample', signal: 'max_joint_torque' });
    expect(r.arm.holds).toHaveLength(1);
  });

  it('holds on a driver fault from the source or from the sink, and records it', () => {
    const r = rig();
    r.source.live.set('max_joint_torque', 1);
    run(r, 0, 3);
    r.source.raise({ kind: 'servo-error', source: 'so101', servoId: 3, bits: ['overload'] }, 0.0025);
    expect(r.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'servo-error' } });
    expect(r.events.faults).toHaveLength(1);
    const r2 = rig();
    r2.arm.faultListeners.forEach((l) => l({ kind: 'disconnect', source: 'so101', detail: 'EIO' }, 0));
    expect(r2.gate.state).toBe('hold');
  });

  it('holds when polling the source throws', () => {
    const r = rig();
    r.source.pollThrows = new Error('port closed');
    expect(() => r.pipeline.step(0)).not.toThrow();
    expect(r.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'disconnect', source: 'scripted' } });
  });

  it('holds on e-stop and refuses release while it is engaged', () => {
    const r = rig();
    r.source.live.set('max_joint_torque', 1);
    const t = run(r, 0, 3);
    r.pipeline.eStop(t, 'mqtt:panel');
    expect(r.arm.holds[0]!.reason).toBe('e-stop from mqtt:panel');
    run(r, t + DT, 3);
    expect(r.pipeline.release(t + 0.01, { by: 'op', authorised: true }).ok).toBe(false);
    expect(r.gate.resetEStop(t + 0.01, { by: 'op', pressedBy: 'mqtt:panel', authorised: true })).toEqual({ ok: true });
    expect(r.pipeline.release(t + 0.01, { by: 'op', authorised: true })).toEqual({ ok: true });
  });

  it('holds when the source watchdog expires (no fresh sample at all) and refuses release until samples return', () => {
    const r = rig({ clauses: [], watchdogTimeout: 0.05 });
    r.source.live.set('ee_speed', 0.1);
    let t = run(r, 0, 10);
    r.source.live.set('ee_speed', undefined);
    t = run(r, t + DT, 80);
    expect(r.gate.holdCause).toMatchObject({ kind: 'watchdog' });
    expect(r.pipeline.release(t, { by: 'op', authorised: true }).ok).toBe(false);
    r.source.live.set('ee_speed', 0.1);
    t = run(r, t + DT, 2);
    expect(r.pipeline.release(t, { by: 'op', authorised: true })).toEqual({ ok: true });
  });

  it('setWatchdogTimeout: a raised watchdog waits longer, and still expires (issue 14 item 13)', () => {
    const r = rig({ clauses: [], watchdogTimeout: 0.05 });
    r.pipeline.setWatchdogTimeout(0.1);
    r.source.live.set('ee_speed', 0.1);
    let t = run(r, 0, 10);
    r.source.live.set('ee_speed', undefined);
    t = run(r, t + DT, 80); // 0.08 s without a sample: past the old 0.05 s, within the new 0.1 s
    expect(r.gate.state).toBe('armed');
    run(r, t + DT, 30);
    expect(r.gate.holdCause).toMatchObject({ kind: 'watchdog' });
    expect(() => r.pipeline.setWatchdogTimeout(0)).toThrow(RangeError);
  });

  it('holds when the CBF solve fails, and the chunk is not forwarded', () => {
    const failing: QpSolverFactory = (p) => {
      const s = activeSetSolverFactory(p);
      return { solve: (o) => s.solve({ ...o, maxIterations: 1 }) };
    };
    const r = rig({ solver: failing });
    r.source.live.set('max_joint_torque', 1);
    const t = run(r, 0, 3);
    const res = r.pipeline.submitChunk(chunkOf('c1', t, sweep(Q0, [1.5, 0.5], 20)), t);
    expect(res).toMatchObject({ verdict: 'held', code: 'solver-failure' });
    expect(res.targets).toBeUndefined();
    expect(r.arm.executed).toHaveLength(0);
    expect(r.arm.holds).toHaveLength(1);
  });

  it('refuses an unauthorised release and one while the violation persists; grants it after', () => {
    const r = rig();
    r.source.live.set('max_joint_torque', 2.5);
    let t = run(r, 0, 3);
    expect(r.pipeline.release(t, { by: 'anon', authorised: false })).toEqual({
      ok: false,
      reason: 'release by anon refused: not authorised',
    });
    const refused = r.pipeline.release(t, { by: 'op', authorised: true });
    expect(!refused.ok && refused.reason).toMatch(/cause persists: clause joint_torque violated/);
    r.source.live.set('max_joint_torque', 1);
    t = run(r, t + DT, 2);
    expect(r.pipeline.release(t, { by: 'op', authorised: true })).toEqual({ ok: true });
    expect(r.gate.state).toBe('armed');
  });

  it('a chunk arriving while no sample has been evaluated recently is held, not filtered', () => {
    const r = rig();
    r.source.live.set('max_joint_torque', 1);
    r.pipeline.step(0);
    const res = r.pipeline.submitChunk(chunkOf('late', 0.1, sweep(Q0, [-0.2, 0.5], 5)), 0.1); // last evaluation 0.1 s ago
    expect(res).toMatchObject({ verdict: 'held', code: 'driver-fault' });
    expect(res.reason).toMatch(/no monitor evaluation/);
    expect(r.arm.executed).toHaveLength(0);
  });

  it('after a hold, chunks are answered "held" and never forwarded', () => {
    const r = rig();
    r.source.live.set('max_joint_torque', 3);
    const t = run(r, 0, 2);
    const res = r.pipeline.submitChunk(chunkOf('c1', t, sweep(Q0, [-0.2, 0.5], 5)), t);
    expect(res).toMatchObject({ verdict: 'held', code: 'violation' });
    expect(r.arm.executed).toHaveLength(0);
  });
});
