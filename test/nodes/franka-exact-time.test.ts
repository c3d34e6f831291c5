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
      monitors: { ...margins, push: () => {} },
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
