import { beforeAll, describe, expect, it } from 'vitest';
import { loadMujoco } from '../../../drivers/sim/mujoco.js';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import { SimWorld } from '../../../drivers/sim/world.js';
import { simPorts } from '../../../drivers/sim/episode.js';
import type { Fault, JointChunk } from '../../../src/ports/index.js';
import { SIGNALS, SignalFrame, Validity } from '../../../src/schema/signals.js';

let world: SimWorld;
const scene = so101Scene();

beforeAll(async () => {
  world = new SimWorld(await loadMujoco(), scene);
});

function chunkTo(target: readonly number[], horizon = 50): JointChunk {
  const n = target.length;
  const targets = new Float64Array(horizon * n);
  for (let k = 0; k < horizon; k++) targets.set(target, k * n);
  return { id: 'c', stamp: 0, horizon, joints: n, dt: scene.controlDt, targets };
}

function run(ports: ReturnType<typeof simPorts>, ticks: number, t0: number): number {
  let t = t0;
  for (let k = 0; k < ticks; k++) {
    ports.sink.tick(t);
    world.stepTick();
    t += scene.controlDt;
  }
  return t;
}

describe('sim ports', () => {
  it('the sink plays a chunk as position targets; the joint source reads them back', () => {
    world.reset(1);
    const ports = simPorts(world);
    const goal = [0.3, -0.6, 0.6, 1.1, 0.2, 1.0];
    ports.sink.execute(chunkTo(goal), 0);
    run(ports, 45, 0);
    const q = new Float64Array(6);
    const t = ports.joints.readPositions(q);
    expect(t).toBeCloseTo(45 * scene.controlDt, 9);
    for (let i = 0; i < 5; i++) expect(q[i]).toBeCloseTo(goal[i]!, 1);
    expect(ports.sink.isHolding).toBe(false);
  });

  it('hold keeps the arm where it is', () => {
    world.reset(1);
    const ports = simPorts(world);
    const ramp = chunkTo([0, -0.7, 0.5, 1.2, 0, 1.0]);
    for (let k = 0; k < 50; k++) ramp.targets[k * 6] = (1.2 * k) / 49;
    ports.sink.execute(ramp, 0);
    const t = run(ports, 10, 0);
    ports.sink.hold(t, 'test');
    const atHold = new Float64Array(6);
    ports.joints.readPositions(atHold);
    run(ports, 30, t);
    const after = new Float64Array(6);
    ports.joints.readPositions(after);
    expect(ports.sink.isHolding).toBe(true);
    expect(ports.sink.holdReason).toBe('test');
    // Still far from the chunk's 1.2 rad pan target: it stopped near where the hold caught it.
    expect(Math.abs(after[0]! - atHold[0]!)).toBeLessThan(0.08);
    expect(after[0]).toBeLessThan(0.5);
    expect(after[0]).toBeGreaterThan(0.1);
  });

  it('holds by itself and reports a fault when gate heartbeats stop', () => {
    world.reset(1);
    const ports = simPorts(world);
    const faults: Fault[] = [];
    ports.sink.onFault((f) => faults.push(f));
    ports.sink.heartbeat(0);
    ports.sink.execute(chunkTo([0.5, -0.6, 0.6, 1.1, 0, 1.0]), 0);
    run(ports, 12, 0);
    expect(ports.sink.isHolding).toBe(true);
    expect(faults.map((f) => f.kind)).toEqual(['remote-heartbeat']);
  });

  it('refuses a malformed chunk with a fault and holds', () => {
    world.reset(1);
    const ports = simPorts(world);
    const faults: Fault[] = [];
    ports.sink.onFault((f) => faults.push(f));
    ports.sink.execute(chunkTo([0.5, -0.6, 0.6]), 0);
    expect(ports.sink.isHolding).toBe(true);
    expect(faults).toHaveLength(1);
  });

  it('the signal source fills exactly the declared signals, stamped and sourced', () => {
    world.reset(1);
    const ports = simPorts(world);
    ports.signals.begin();
    world.stepTick();
    const frame = new SignalFrame();
    ports.source.poll(frame, 0.5);
    SIGNALS.forEach((s, i) => {
      const declared = (scene.signals as readonly string[]).includes(s.name);
      expect(frame.validity[i], s.name).toBe(declared ? Validity.Valid : Validity.Missing);
      if (declared) {
        expect(frame.stamps[i]).toBe(0.5);
        expect(frame.sources[i]).toBe('sim');
      }
    });
    expect(frame.get('obj_above_table')).toBeCloseTo(0, 3);
    expect(frame.get('gripper_contact')).toBe(0);
  });
});
