/**
 * `armguard run so101 --tracking udp:… --obstacle-bodies …` on the emulated SO-101 behind a real
 * socat pty, with the poses over a real UDP socket (issue 15): a chunk that sweeps the arm through
 * a tracked body is bent around it before it reaches the servos; when the body's poses stop
 * arriving the next chunk is held, naming the body, as on the Franka node. A datagram that does
 * not parse is counted and changes nothing.
 */
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/cli/compose/session.js';
import { parseTrackingOptions } from '../../src/cli/commands/run.js';
import { Barrier, CapsuleModel } from '../../src/kinematics/index.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { so101ModelFor } from '../../drivers/so101/mapping.js';
import { startEmulatedSession, submitChunk, waitUntil } from '../support/run-session.js';

const sessions: RunSession[] = [];
const sender = createSocket('udp4');
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop('test cleanup');
});

const RADIUS = 0.03;
const send = (port: number, text: string) =>
  new Promise<void>((resolve, reject) => sender.send(text, port, '127.0.0.1', (e) => (e ? reject(e) : resolve())));
const cupAt = (p: readonly number[]) => JSON.stringify({ v: 1, bodies: [{ name: 'cup', p, q: [0, 0, 0, 1] }] });

describe('run so101 with live tracked obstacles (UDP pose feed, emulated arm over a pty)', () => {
  it('a chunk through the tracked cup is bent around it; with the feed silent the next chunk holds, naming the cup', async () => {
    const { s, calibration } = await startEmulatedSession({
      // a loaded host delays the gate's heartbeats: the arm-side watchdog must not hold first
      armWatchdogS: 2,
      tracking: { port: 0, bodies: [{ body: 'cup', radius: RADIUS }], trackingInBase: [0, 0, 0, 0, 0, 0], maxAge: 0.2 },
    });
    sessions.push(s);
    const feed = s.trackingFeed!;
    expect(feed.port).toBeGreaterThan(0);
    const q = new Float64Array(6);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(q)), 5, 'a first joint sample');
    // 0.6 rad on the pan joint over 1 s (50 × 20 ms); the cup sits where the gripper is mid-sweep.
    const H = 50;
    const targets = new Float64Array(H * 6);
    for (let k = 0; k < H; k++) {
      targets.set(q, k * 6);
      targets[k * 6] = q[0]! + (0.6 * (k + 1)) / H;
    }
    const model = new CapsuleModel(so101ModelFor(calibration));
    const mid = Array.from(targets.subarray(25 * 6, 26 * 6));
    model.update(mid);
    const g = model.count - 1;
    const tip = Array.from(model.world.subarray(6 * g + 3, 6 * g + 6));
    const cup = [tip[0]!, tip[1]!, tip[2]! + 0.04];
    const check = new Barrier(
      model,
      { planes: new Float64Array(0), spheres: Float64Array.from([...cup, RADIUS]), box: null },
      0,
      { includeSelf: false },
    );
    let nominalMin = Infinity;
    for (let k = 0; k < H; k++) nominalMin = Math.min(nominalMin, check.value(targets.subarray(k * 6, k * 6 + 6)));
    expect(nominalMin).toBeLessThan(0); // the nominal sweep drives through the cup

    // A bridge streaming at 100 Hz.
    const stream = setInterval(() => void send(feed.port, cupAt(cup)), 10);
    try {
      await waitUntil(() => feed.received >= 3, 5, 'cup poses to arrive');
      await send(feed.port, '{"v":1,"bodies":[{"name":"cup","p":[0,0],"q":[0,0,0,1]}]}');
      await waitUntil(() => feed.rejected === 1, 5, 'the malformed datagram to be counted');
      expect(feed.lastRejection).toMatch(/bodies\[0\]\.p: expected \[x, y, z\]/);
      const now = systemClock.now();
      const r = await submitChunk(s, { id: 'sweep', stamp: now, horizon: H, joints: 6, dt: 0.02, targets }, now);
      expect(r.verdict, r.reason).toBe('filtered');
      let bentMin = Infinity;
      for (let k = 0; k < H; k++) bentMin = Math.min(bentMin, check.value(r.targets!.subarray(k * 6, k * 6 + 6)));
      expect(bentMin).toBeGreaterThanOrEqual(0.01 - 1e-6); // d_safe 1 cm kept from the cup's sphere
    } finally {
      clearInterval(stream);
    }
    // The bridge stops: once the last pose is older than 0.2 s the next chunk is held.
    await new Promise((r) => setTimeout(r, 250));
    const later = systemClock.now();
    const held = await submitChunk(s, { id: 'after', stamp: later, horizon: H, joints: 6, dt: 0.02, targets }, later);
    expect(held.verdict, held.reason).toBe('held');
    expect(held.reason).toMatch(/tracked obstacle 'cup' last seen 0\.\d+ s ago/);
    expect(s.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'stale-signal', source: 'tracking' },
    });
  }, 30_000);

  it('a cup never seen holds the first chunk', async () => {
    const { s } = await startEmulatedSession({
      tracking: { port: 0, bodies: [{ body: 'cup', radius: RADIUS }], trackingInBase: [0, 0, 0, 0, 0, 0], maxAge: 0.2 },
    });
    sessions.push(s);
    const q = new Float64Array(6);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(q)), 5, 'a first joint sample');
    const targets = new Float64Array(6 * 5);
    for (let k = 0; k < 5; k++) targets.set(q, k * 6);
    const now = systemClock.now();
    const r = await submitChunk(s, { id: 'first', stamp: now, horizon: 5, joints: 6, dt: 0.02, targets }, now);
    expect(r).toMatchObject({ verdict: 'held' });
    expect(r.reason).toMatch(/tracked obstacle 'cup' never seen/);
  }, 30_000);
});

describe('run so101 --bystanders (UDP pose feed, emulated arm over a pty)', () => {
  it('a tracked bystander makes non_target_max_disp apply; pushing it 2 cm holds the arm with the violation', async () => {
    const { s } = await startEmulatedSession({
      tracking: { port: 0, bodies: [], bystanders: ['vase'], trackingInBase: [0, 0, 0, 0, 0, 0], maxAge: 0.2 },
    });
    sessions.push(s);
    expect(s.runtime.clauses).toContain('non_target_max_disp');
    const feed = s.trackingFeed!;
    let at = [0.5, 0.2, 0.1];
    const vase = () => JSON.stringify({ v: 1, bodies: [{ name: 'vase', p: at, q: [0, 0, 0, 1] }] });
    const stream = setInterval(() => void send(feed.port, vase()), 10);
    try {
      await waitUntil(() => feed.received >= 5 && s.gate.state === 'armed', 5, 'the vase tracked and the gate armed');
      at = [0.52, 0.2, 0.1];
      await waitUntil(() => s.gate.holding, 5, 'the hold on the displaced vase');
      expect(s.gate.holdCause).toMatchObject({ kind: 'violation', clause: 'non_target_max_disp' });
    } finally {
      clearInterval(stream);
    }
  }, 30_000);
});

describe('--tracking options', () => {
  it('parses the Franka-named options and names what is wrong', () => {
    expect(parseTrackingOptions('udp:9870', 'cup:0.05,plate:0.1', undefined, '0.3,0,0,0,0,1.57', 0.2)).toEqual({
      port: 9870,
      bodies: [
        { body: 'cup', radius: 0.05 },
        { body: 'plate', radius: 0.1 },
      ],
      trackingInBase: [0.3, 0, 0, 0, 0, 1.57],
      maxAge: 0.2,
    });
    expect(parseTrackingOptions('udp:0.0.0.0:9870', 'cup:0.05', undefined, undefined, undefined)).toMatchObject({
      host: '0.0.0.0',
      maxAge: 0.1,
      trackingInBase: [0, 0, 0, 0, 0, 0],
    });
    expect(parseTrackingOptions(undefined, undefined, undefined, undefined, undefined)).toBeUndefined();
    expect(parseTrackingOptions(undefined, 'cup:0.05', undefined, undefined, undefined)).toMatch(
      /--obstacle-bodies needs --tracking/,
    );
    expect(parseTrackingOptions('vrpn', 'cup:0.05', undefined, undefined, undefined)).toMatch(
      /--tracking: expected udp:/,
    );
    expect(parseTrackingOptions('udp:70000', 'cup:0.05', undefined, undefined, undefined)).toMatch(/port 0\.\.65535/);
    expect(parseTrackingOptions('udp:9870', undefined, undefined, undefined, undefined)).toMatch(
      /needs --obstacle-bodies/,
    );
    expect(parseTrackingOptions('udp:9870', undefined, 'vase, plate', undefined, undefined)).toMatchObject({
      bodies: [],
      bystanders: ['vase', 'plate'],
    });
    expect(parseTrackingOptions(undefined, undefined, 'vase', undefined, undefined)).toMatch(
      /--bystanders needs --tracking/,
    );
    expect(parseTrackingOptions('udp:9870', undefined, 'vase,', undefined, undefined)).toMatch(
      /--bystanders: expected body names/,
    );
    expect(parseTrackingOptions('udp:9870', 'cup', undefined, undefined, undefined)).toMatch(
      /expected 'body:r'.*got 'cup'/,
    );
    expect(parseTrackingOptions('udp:9870', 'cup:0.05,cup:0.1', undefined, undefined, undefined)).toMatch(
      /listed twice/,
    );
    expect(parseTrackingOptions('udp:9870', 'cup:0.05', undefined, '1,2,3', undefined)).toMatch(
      /--tracking-frame-in-base: expected/,
    );
  });
});
