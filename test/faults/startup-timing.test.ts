/**
 * Issue 14 items 11 and 13: false holds from timing. The documented dry run held at once on a busy
 * 2-core host (`max_joint_torque stale (age 0.058 s > 0.05 s)`). `run` now measures its read cycle
 * at start-up and derives the max-age floor and watchdog from it (saying so), and the serial
 * timeout with a real port defaults to a value a USB adapter's latency timer fits in. The load
 * here is real: the event loop is blocked 30 ms of every 100 ms while the emulated arm runs (with
 * the SPEC 0.05 s torque max age that load holds within a second).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { maxAgeFloor, summariseReads, defaultWatchdog } from '../../src/cli/compose/read-timing.js';
import { DEFAULT_PORT_TIMEOUT_S } from '../../src/cli/compose/so101-arm.js';
import { parseRunArgs } from '../../src/cli/commands/run.js';
import { CAL, runDir } from '../support/run-process.js';
import { startEmulatedSession, waitUntil } from '../support/run-session.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('timing derived from the measured read cycle', () => {
  it('floor = 2 × (period + slowest read); watchdog = 2 × floor, at least 0.1 s (hand-computed)', () => {
    const c = summariseReads([0.004, 0.012, 0.006, 0.031, 0.005]);
    expect(c.median).toBe(0.006);
    expect(c.max).toBe(0.031);
    expect(maxAgeFloor(c, 100)).toBeCloseTo(2 * (0.01 + 0.031), 12); // 0.082 s
    expect(maxAgeFloor(summariseReads([0.002, 0.003]), 30)).toBeCloseTo(2 * (1 / 30 + 0.003), 12);
    expect(defaultWatchdog(0.082)).toBeCloseTo(0.164, 12);
    expect(defaultWatchdog(0.02)).toBe(0.1);
    expect(summariseReads([0.001, 0.003, 0.002, 0.004]).median).toBeCloseTo(0.0025, 12);
  });

  it('with --port the serial timeout defaults to 50 ms and --bus-timeout / --watchdog / --arm-watchdog are options', async () => {
    expect(DEFAULT_PORT_TIMEOUT_S).toBe(0.05);
    const { access } = runDir('armguard-fault-timing-');
    const base = [
      'so101',
      '--port',
      '/dev/ttyACM9',
      '--calibration',
      CAL,
      '--task',
      'so101-pick-butter',
      '--access',
      access,
    ];
    const p = await parseRunArgs([...base, '--bus-timeout', '0.03', '--watchdog', '0.3', '--arm-watchdog', '0.5']);
    expect(p.ok && p.options).toMatchObject({ busTimeoutS: 0.03, watchdogS: 0.3, armWatchdogS: 0.5 });
    const bad = await parseRunArgs([...base, '--bus-timeout', '5']);
    expect(!bad.ok && bad.errors).toEqual(["armguard run: --bus-timeout: expected seconds in [0.002, 1], got '5'"]);
  });

  it('on a host whose event loop stalls 30 ms in every 100 ms: the measured reads show it, the derived floor covers them and the gate uses it', async () => {
    const stall = setInterval(() => {
      const until = performance.now() + 30;
      while (performance.now() < until) {
        // a busy host: nothing else runs on this thread meanwhile
      }
    }, 100);
    cleanup.push(() => clearInterval(stall));
    const { s, log } = await startEmulatedSession({ minMaxAge: undefined });
    cleanup.push(() => s.stop('test cleanup'));
    const timing = log.find((l) => l.startsWith('timing: '));
    expect(timing).toMatch(
      /^timing: \d+ state reads over [\d.]+ s took median [\d.]+ ms, max ([\d.]+) ms at 100 Hz → max-age floor ([\d.]+) s \(2 × \(period \+ slowest read\); --max-age to set\), raising \d+ signal max age\(s\) below it; watchdog [\d.]+ s \(--watchdog to set\); the floor follows slower reads up to the ceiling 0\.25 s \(--max-age-ceiling\)$/,
    );
    const m = /max ([\d.]+) ms .* floor ([\d.]+) s/.exec(timing!)!;
    expect(Number(m[2])).toBeCloseTo(2 * (0.01 + Number(m[1]) / 1000), 2);
    expect(Number(m[2])).toBeGreaterThan(0.05); // the stalls show in the measurement
    // The gate works with the derived floor: a stale hold (possible when another program loads the
    // host more than during the measurement) names the floor in force as the signal's max age — the
    // start-up one or one the reads raised since (test/faults/startup-timing-adaptive.test.ts), never
    // the SPEC 0.05 s nor more than the 0.25 s ceiling.
    await new Promise((r) => setTimeout(r, 1500));
    for (const line of log.filter((l) => /gate .* → hold: signal \S+ stale/.test(l))) {
      const max = Number(/> max ([\d.]+) s/.exec(line)![1]);
      expect(max).toBeGreaterThanOrEqual(Number(m[2]) - 5e-4);
      expect(max).toBeLessThanOrEqual(0.25);
    }
  }, 30_000);
});

describe('a slowed read cycle (emulated servos reply late, as through a slow adapter)', () => {
  /** `minMaxAge` undefined: the floor derived from the measured reads. */
  const start = async (minMaxAge: number | undefined, replyDelayS = SLOW_REPLY_S) => {
    const { s, log } = await startEmulatedSession({
      minMaxAge,
      arm: { kind: 'emulator', replyDelayS },
      // The arm's own heartbeat watchdog is not derived from the read cycle: kept out of the way so a
      // machine stalled by other test files cannot hold the arm first and hide what is tested here.
      armWatchdogS: 5,
    });
    cleanup.push(() => s.stop('test cleanup'));
    return { s, log };
  };
  // 20 ms per reply: reads then take ≈ 22 ms (median on a quiet host), which shows in the measured floor. (At 10 ms,
  // a machine at load ≈ 17 sometimes stalled a read during the run by more than the 2× margin covers —
  // age 0.126 s > floor 0.106 s: the derivation cannot foresee load that arrives after the measurement.)
  const SLOW_REPLY_S = 0.02;

  it('with the derived ages: the start-up line states them, derived from the slowed reads', async () => {
    const { log } = await start(undefined);
    const timing = log.find((l) => l.startsWith('timing: '));
    const m =
      /max ([\d.]+) ms at 100 Hz → max-age floor ([\d.]+) s .*raising (\d+) signal max age\(s\) below it; watchdog ([\d.]+) s \(--watchdog to set\); the floor follows slower reads up to the ceiling 0\.25 s \(--max-age-ceiling\)$/.exec(
        timing ?? '',
      );
    expect(m, timing).not.toBeNull();
    const [slowest, floor, raised, watchdog] = [Number(m![1]) / 1000, Number(m![2]), Number(m![3]), Number(m![4])];
    expect(slowest).toBeGreaterThan(SLOW_REPLY_S); // the slow replies show in the measurement
    expect(floor).toBeCloseTo(2 * (0.01 + slowest), 2); // the line prints ms to 0.1
    expect(raised).toBeGreaterThan(0);
    expect(watchdog).toBeCloseTo(Math.max(0.1, 2 * floor), 2);
    // Not asserted: that the run then never holds on a stale signal. On this shared 2-core machine
    // (load ≈ 17) it sometimes did — age 0.126 s > floor 0.106 s, 0.154 s > 0.114 s: the 1 s start-up
    // measurement does not foresee stalls that come later (hardware.md, Timing).
  }, 30_000);

  it('control: the same slow replies with the SPEC ages (--max-age 0.05) hold on a stale signal', async () => {
    // Replies late enough that one read cycle (≥ 0.06 s) exceeds the 0.05 s SPEC age by itself: at
    // SLOW_REPLY_S a quiet host read every ≈ 22 ms (max 29 ms) and nothing went stale, so this control
    // only held on a loaded machine.
    const { log } = await start(0.05, 0.06);
    expect(log.find((l) => l.startsWith('timing: '))).toMatch(
      /max-age floor 0\.05 s \(--max-age; derived would be [\d.]+ s\)/,
    );
    await waitUntil(
      () => log.some((l) => /→ hold: signal \S+ stale \(age [\d.]+ s > max 0\.05 s\)/.test(l)),
      5,
      'a stale hold at the SPEC max age',
    );
  }, 30_000);
});
