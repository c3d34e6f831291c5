/**
 * Issue 13 item 3 on the live path: ROS 2 stamps are Unix-epoch ns (≈ 1.7e18, beyond 2^53). Carried
 * as float seconds, two robot states exactly 5 ms apart were 5 ms ± 0.2 µs apart by the time they
 * reached the monitor bank, so whether the older one was inside `historically[0:0.005]` was decided
 * by rounding. The Franka node now runs on its time base (seconds since an origin subtracted in
 * BigInt, exact in ns) and the bank, gate and pipeline compare integer ns. The expected answers come
 * from test/stl/support/window-reference.ts (the window semantics on BigInt times), never from the engine.
 */
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { offeredQos } from '../../src/mcap/index.js';
import { writeBagFile } from '../../src/platform/bag-writer.js';
import { fileSource } from '../../src/platform/file-source.js';
import { FRANKA_TOPICS, FRANKA_TYPES } from '../../drivers/franka/messages.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { DEFAULT_GATE_CONFIG, Gate } from '../../src/gate/index.js';
import { replayFrankaBag } from '../../src/nodes/franka-replay.js';
import { Pipeline } from '../../src/runtime/pipeline.js';
import type { ScoringSpec } from '../../src/safety/index.js';
import { formatNsAsSeconds } from '../../src/util/time.js';
import { evaluateOfflineNs, parseFormula } from '../../src/stl/index.js';
import { STL_SIGNALS } from '../../src/safety/stl-bridge.js';
import { frankaRobotState } from '../mcap/support/franka-fixtures.js';
import { windowReference } from '../stl/support/window-reference.js';
import { writeFrankaBag } from '../support/franka-bag.js';

const MS = 1_000_000n;
/** A real-looking ROS time (2025-12-01), not a round number: beyond 2^53 ns. */
const ORIGIN = 1_764_612_345_123_456_789n;
/** Calm efforts of writeFrankaBag; the scaled peak (87/12 · 3 N·m on joint 5) is 21.75 N·m. */
const CALM = [20, 22, 18, 15, 3, 2.5, 1];
const LIMITS = [87, 87, 87, 87, 12, 12, 12];
/** max_joint_torque as the mapping documents it: max_i |τ_i| · 87 / limit_i. */
const peak = (effort: readonly number[]) => Math.max(...effort.map((e, i) => (Math.abs(e) / LIMITS[i]!) * 87));

/** The default spec with joint_torque's formula replaced by a window whose edge falls on samples. */
function specWithTorqueWindow(window: string): ScoringSpec {
  const loaded = loadScoringSpec(defaultSpecPaths());
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const library = loaded.spec.library;
  return {
    ...loaded.spec,
    library: {
      ...library,
      clauses: library.clauses.map((c) =>
        c.id === 'joint_torque' ? { ...c, formula: `${window} (max_joint_torque < {tau})` } : c,
      ),
    },
  };
}

describe('the live Franka path decides window edges exactly (integer ns from the ROS stamps)', () => {
  it('regression: robot states exactly 1 ms apart on a Unix-epoch clock — historically[0:0.005] sees each spike on exactly 6 samples, as the semantics say', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-exact-')), 'edges.mcap');
    // 50 one-sample spikes of 100 N·m on joint 1 (limit 87), 20 ms apart.
    const spikeAt = Array.from({ length: 50 }, (_, m) => 10 + 20 * m);
    await writeFrankaBag(path, {
      seconds: 1.05,
      startNs: ORIGIN,
      spikes: spikeAt.map((k) => [k / 1000, (k + 0.5) / 1000, 0, 100]),
    });
    const report = await replayFrankaBag(fileSource(path), {
      spec: specWithTorqueWindow('historically[0:0.005]'),
      platform: 'fr3',
      task: 'libero-spatial-pick-bowl',
      keepMargins: true,
    });
    expect(report.steps).toBe(1050);
    const torque = report.clauses.find((c) => c.id === 'joint_torque')!;
    // Sample k's value holds on [t_k, t_k + 1 ms): it meets [t − 5 ms, t] for t_k ≤ t ≤ t_k + 5 ms.
    expect(torque.violatingSteps).toBe(50 * 6);

    const times = Array.from({ length: 1050 }, (_, k) => ORIGIN + BigInt(k) * MS);
    const x = times.map((_, k) => peak(spikeAt.includes(k) ? [100, ...CALM.slice(1)] : CALM));
    const expected = windowReference('historically', 0n, 5n * MS, times, x, 87).map((r) => r / 87);
    const live = Array.from(report.margins!['joint_torque']!);
    expect(live.map((m) => m < 0)).toEqual(expected.map((r) => r < 0));
    live.forEach((m, k) => expect(m, `sample ${k}`).toBeCloseTo(expected[k]!, 12));
  });

  it('property: decimal stamps placed on window edges, replayed through the live node (FrankaRos, pipeline, gate, monitor bank), give the declared window', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-exact-'));
    let run = 0;
    const scenario = fc
      .record({
        origin: fc.bigInt({ min: 1_600_000_000n * 10n ** 9n, max: 1_800_000_000n * 10n ** 9n }),
        op: fc.constantFrom<'historically' | 'once'>('historically', 'once'),
        aMs: fc.integer({ min: 0, max: 4 }),
        widthMs: fc.integer({ min: 1, max: 6 }),
        gaps: fc.array(fc.oneof(fc.constantFrom('a', 'b', 'w', 'ms'), fc.integer({ min: 1, max: 3_000_000 })), {
          minLength: 2,
          maxLength: 30,
        }),
        torques: fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 31, maxLength: 31 }),
      })
      .map((s) => {
        const a = BigInt(s.aMs) * MS;
        const b = a + BigInt(s.widthMs) * MS;
        const times: bigint[] = [s.origin];
        for (const g of s.gaps) {
          const step = g === 'a' ? a : g === 'b' ? b : g === 'w' ? b - a : g === 'ms' ? MS : BigInt(g);
          times.push(times[times.length - 1]! + (step === 0n ? MS : step));
        }
        return { ...s, a, b, times };
      });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ op, a, b, times, torques }) => {
        // joint 1 (limit 87) carries the value; the others stay below it
        const efforts = times.map((_, k) => [torques[k]! + 0.5, 1, 1, 1, 1, 1, 1]);
        const path = join(dir, `run-${run++}.mcap`);
        await writeBagFile(path, async (w) => {
          await w.addTopic({
            topic: FRANKA_TOPICS.robotState,
            type: FRANKA_TYPES.robotState,
            qos: [offeredQos('reliable')],
          });
          for (const [k, t] of times.entries()) {
            const s = frankaRobotState(t, 0);
            s.measured_joint_state.effort = efforts[k]!;
            await w.write(FRANKA_TOPICS.robotState, t, s);
          }
        });
        const window = `${op}[${formatNsAsSeconds(a)}:${formatNsAsSeconds(b)}]`;
        const report = await replayFrankaBag(fileSource(path), {
          spec: specWithTorqueWindow(window),
          platform: 'fr3',
          task: 'libero-spatial-pick-bowl',
          keepMargins: true,
        });
        const expected = windowReference(op, a, b, times, efforts.map(peak), 87).map((r) => r / 87);
        expect(report.clauses.find((c) => c.id === 'joint_torque')!.violatingSteps).toBe(
          expected.filter((r) => r < 0).length,
        );
        const live = Array.from(report.margins!['joint_torque']!);
        expect(live.map((m) => m < 0)).toEqual(expected.map((r) => r < 0));
        live.forEach((m, k) => expect(m).toBeCloseTo(expected[k]!, 12));
      }),
      { numRuns: 40 },
    );
  });
});

/** Robot states stamped `stamps` (the robot's clock) and logged — received — at `arrivals`, joint 1 carrying `torques`. */
async function writeStampedBag(
  path: string,
  stamps: readonly bigint[],
  arrivals: readonly bigint[],
  torques: readonly number[],
) {
  await writeBagFile(path, async (w) => {
    await w.addTopic({ topic: FRANKA_TOPICS.robotState, type: FRANKA_TYPES.robotState, qos: [offeredQos('reliable')] });
    for (const [k, stamp] of stamps.entries()) {
      const s = frankaRobotState(stamp, 0);
      s.measured_joint_state.effort = [torques[k]!, 1, 1, 1, 1, 1, 1];
      await w.write(FRANKA_TOPICS.robotState, arrivals[k]!, s);
    }
  });
}

describe("the live monitors sample at the robot state's own stamp, not at its arrival (issue 13 item 3)", () => {
  it('property: 1 kHz stamps with irregular jitter and gaps exactly on the window edges, delivered after a random transport delay — the live path (fake graph, FrankaRos, session, monitor bank) gives per sample the margins the offline evaluator gives on the stamps, and the windows the semantics declare', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-stamp-'));
    let run = 0;
    const window = fc.oneof(
      // the issue's own example
      fc.constant({ op: 'historically' as const, a: 0n, b: 5n * MS }),
      fc
        .record({
          op: fc.constantFrom<'historically' | 'once'>('historically', 'once'),
          a: fc.integer({ min: 0, max: 4 }).map((m) => BigInt(m) * MS),
          width: fc.integer({ min: 1, max: 6 }).map((m) => BigInt(m) * MS),
        })
        .map(({ op, a, width }) => ({ op, a, b: a + width })),
    );
    const scenario = fc
      .record({
        origin: fc.bigInt({ min: 1_600_000_000n * 10n ** 9n, max: 1_800_000_000n * 10n ** 9n }),
        window,
        // 1 ms ± jitter (ns), or exactly a window bound
        gaps: fc.array(fc.oneof(fc.integer({ min: -300_000, max: 300_000 }), fc.constantFrom('a', 'b', 'w', 'ms')), {
          minLength: 10,
          maxLength: 40,
        }),
        // transport delay of each message (ns): up to 3 ms, irregular
        delays: fc.array(fc.integer({ min: 0, max: 3_000_000 }), { minLength: 41, maxLength: 41 }),
        torques: fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 41, maxLength: 41 }),
      })
      .map((s) => {
        const { a, b } = s.window;
        const stamps: bigint[] = [s.origin];
        for (const g of s.gaps) {
          const step = g === 'a' ? a : g === 'b' ? b : g === 'w' ? b - a : g === 'ms' ? MS : MS + BigInt(g);
          stamps.push(stamps[stamps.length - 1]! + (step === 0n ? MS : step));
        }
        const arrivals: bigint[] = [];
        for (const [k, t] of stamps.entries()) {
          const at = t + BigInt(s.delays[k]!);
          arrivals.push(k > 0 && at <= arrivals[k - 1]! ? arrivals[k - 1]! + 1n : at);
        }
        return { ...s, stamps, arrivals };
      });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ window: { op, a, b }, stamps, arrivals, torques }) => {
        const path = join(dir, `run-${run++}.mcap`);
        const efforts = stamps.map((_, k) => torques[k]! + 0.5);
        await writeStampedBag(path, stamps, arrivals, efforts);
        const text = `${op}[${formatNsAsSeconds(a)}:${formatNsAsSeconds(b)}]`;
        const report = await replayFrankaBag(fileSource(path), {
          spec: specWithTorqueWindow(text),
          platform: 'fr3',
          task: 'libero-spatial-pick-bowl',
          keepMargins: true,
        });
        expect(report.steps).toBe(stamps.length);
        const live = Array.from(report.margins!['joint_torque']!);
        // the offline evaluator on the stamps, episode-relative ns
        const parsed = parseFormula(`${text} (max_joint_torque < 87)`, STL_SIGNALS);
        if (!parsed.ok) throw new Error(parsed.error.message);
        const offline = evaluateOfflineNs(
          parsed.formula,
          Float64Array.from(stamps, (t) => Number(t - stamps[0]!)),
          new Map([['max_joint_torque', Float64Array.from(efforts.map((e) => peak([e, 1, 1, 1, 1, 1, 1])))]]),
        );
        const reference = windowReference(
          op,
          a,
          b,
          stamps,
          efforts.map((e) => peak([e, 1, 1, 1, 1, 1, 1])),
          87,
        );
        expect(live.map((m) => m < 0)).toEqual(reference.map((r) => r < 0));
        live.forEach((m, k) => {
          expect(m * 87, `sample ${k}`).toBeCloseTo(offline[k]!, 9);
          expect(m * 87, `sample ${k}`).toBeCloseTo(reference[k]!, 9);
        });
      }),
      { numRuns: 40 },
    );
  });

  it('a robot state stamped before the one monitored last, or repeating its stamp, is not a new sample', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-stamp-')), 'back.mcap');
    const stamps = [0n, 1n, 2n, 2n, 1n, 3n].map((k) => ORIGIN + k * MS);
    const arrivals = stamps.map((_, k) => ORIGIN + BigInt(k) * MS + 500_000n);
    await writeStampedBag(path, stamps, arrivals, [10, 10, 10, 100, 100, 10]);
    const report = await replayFrankaBag(fileSource(path), {
      spec: specWithTorqueWindow('historically[0:0.005]'),
      platform: 'fr3',
      task: 'libero-spatial-pick-bowl',
      keepMargins: true,
    });
    // stamps 0, 1, 2 and 3 ms were monitored; the repeat of 2 ms and the 1 ms after it were not
    expect(report.steps).toBe(4);
    expect(report.clauses.find((c) => c.id === 'joint_torque')!.violatingSteps).toBe(0);
  });

  it('the pipeline monitors each sample once at its stamp; a stamp going back is a clock fault the gate holds on', () => {
    const force = 2;
    const gate = new Gate({ ...DEFAULT_GATE_CONFIG, requiredSignals: [force] });
    const pushed: number[] = [];
    const margins = {
      count: 0,
      name: () => '',
      margin: () => Infinity,
      low: () => Infinity,
      high: () => Infinity,
      epsilon: () => 0,
    };
    let stampNs = NaN;
    const source = { name: 'robot', poll: () => {}, sampleNs: () => stampNs, onFault: () => {} };
    const sink = { name: 'test', execute: () => {}, hold: () => {}, heartbeat: () => {}, onFault: () => {} };
    const pipeline = new Pipeline({
      source,
      monitors: { ...margins, pushNs: (t) => void pushed.push(t) },
      gate,
      sink,
      watchdogTimeout: 0.1,
    });
    const sample = (ns: number, now: number) => {
      stampNs = ns;
      pipeline.frame.set(force, 1, ns / 1e9, 'robot');
      return pipeline.step(now);
    };
    expect(sample(1_000_000, 0.0017)).toBe('armed');
    expect(pipeline.frame.t).toBe(0.001); // the frame is the sample's, at its stamp
    pipeline.step(0.0025); // an idle step: the same sample, not monitored again
    expect(pipeline.sampled).toBe(false);
    expect(sample(2_000_001, 0.0031)).toBe('armed');
    expect(pushed).toEqual([1_000_000, 2_000_001]);
    expect(sample(1_500_000, 0.0041)).toBe('hold');
    expect(gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'clock-jump', source: 'robot' } });
    expect(pushed).toEqual([1_000_000, 2_000_001]);
  });
});

describe('ages are compared in integer ns', () => {
  it('a sample exactly max-age old is fresh and one exactly the watchdog timeout old has not tripped it (0.4 − 0.3 is 0.10000000000000003 in floats)', () => {
    const force = 2; // contact_force_max: max age 0.1 s
    const gate = new Gate({ ...DEFAULT_GATE_CONFIG, requiredSignals: [force] });
    const margins = {
      count: 0,
      name: () => '',
      margin: () => Infinity,
      low: () => Infinity,
      high: () => Infinity,
      epsilon: () => 0,
    };
    const source = { name: 'test', poll: () => {}, onFault: () => {} };
    const sink = { name: 'test', execute: () => {}, hold: () => {}, heartbeat: () => {}, onFault: () => {} };
    const pipeline = new Pipeline({
      source,
      monitors: { ...margins, pushNs: () => {} },
      gate,
      sink,
      watchdogTimeout: 0.1,
    });
    pipeline.frame.set(force, 1, 0.3, 'test');
    expect(pipeline.step(0.3)).toBe('armed');
    expect(pipeline.step(0.4)).toBe('armed'); // exactly 100 ms: fresh, watchdog fed
    expect(pipeline.step(0.400000001)).toBe('hold'); // 1 ns later: stale
    expect(gate.holdCause).toMatchObject({ kind: 'watchdog' });
  });
});
