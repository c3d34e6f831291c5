/**
 * Issue 13 item 4 (third bullet) on the live path: a clause whose signal is missing is never
 * "satisfied". The live monitor bank does not feed a clause whose signal is missing or invalid (its
 * margin is NaN, the gate holds), counts where each clause was evaluated, and the episode's end
 * record and `episodes.jsonl` say `not evaluated: signal X missing`, as `armguard replay` does
 * (src/schema/clause-coverage.ts). Before, the bank evaluated the clause over the frame's cleared
 * value and the index recorded a margin for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QOS_RELIABLE } from '../../drivers/ros2/interface.js';
import type { FrankaRobotState } from '../../drivers/franka/messages.js';
import { INDEX_FILE_NAME, indexEpisodeFile, readEpisodeTrace, readIndex } from '../../src/episode/index.js';
import { buildReportFromDir } from '../../src/report/build-run.js';
import { EpisodeScorer } from '../../src/safety/index.js';
import { MonitorBank } from '../../src/runtime/monitor-bank.js';
import { SignalFrame, signalIndex } from '../../src/schema/signals.js';
import { frankaTestConfig } from './support/franka-config.js';
import { closeLabelledEpisode, frankaRig } from './support/franka-rig.js';
import { robotState } from '../drivers/franka/support/franka-messages.js';

const READY = [0, -0.785, 0, -2.356, 0, 1.571, 0.785];
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('a clause whose signal is missing is not evaluated live', () => {
  it('the monitor bank does not evaluate it (NaN margin, never satisfied) and counts the missing steps; the signal back, it evaluates again', () => {
    const bank = MonitorBank.fromClauses([
      { clause: { id: 'max_contact_force' }, formula: 'always (contact_force_max < 50)', tau: 50, warn: undefined },
      { clause: { id: 'joint_torque' }, formula: 'always (max_joint_torque < 87)', tau: 87, warn: undefined },
    ]);
    const frame = new SignalFrame();
    frame.clear(); // contact_force_max stays missing (its value slot reads 0)
    for (let k = 0; k < 5; k++) {
      frame.set(signalIndex('max_joint_torque')!, 10, k * 0.01, 'test');
      bank.push(k * 0.01, frame);
      expect(bank.margin(0)).toBeNaN();
      expect(bank.high(0)).toBeNaN();
      expect(bank.margin(1)).toBeCloseTo(77 / 87, 12);
    }
    expect(bank.episodeCoverage()).toEqual({
      steps: 5,
      clauses: [
        { evaluatedSteps: 0, missing: [{ signal: 'contact_force_max', steps: 5 }] },
        { evaluatedSteps: 5, missing: [] },
      ],
    });
    frame.set(signalIndex('contact_force_max')!, 60, 0.05, 'test');
    bank.push(0.05, frame);
    expect(bank.margin(0)).toBeCloseTo(-10 / 50, 12);
    expect(bank.coverage(0)).toEqual({ evaluatedSteps: 1, missing: [{ signal: 'contact_force_max', steps: 5 }] });
    bank.reset();
    expect(bank.episodeCoverage().steps).toBe(0);
  });

  it('a Franka node without a gripper topic: episodes.jsonl, the episode file and the report say "not evaluated: signal gripper_contact missing"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-missing-'));
    dirs.push(dir);
    const config = frankaTestConfig({ robotId: 'fr3-nogrip', episodesDir: dir });
    const rig = frankaRig(config, (timers) => ({
      recording: { timers, wallClock: () => new Date(Date.UTC(2026, 11, 1, 19, 0, 0)) },
    }));
    const { spec, clock, timers, graph, parts } = rig;
    const episodes = parts.episodes!;
    const state = graph
      .createNode('world')
      .createPublisher<FrankaRobotState>('franka_msgs/msg/FrankaRobotState', config.robotStateTopic, QOS_RELIABLE);
    timers.advance(0.1);
    await episodes.start(clock.now());
    for (let i = 0; i < 50; i++) {
      timers.advance(0.001);
      state.publish(robotState(clock.now(), { q: READY, tau: [5, 5, 5, 5, 1, 1, 1] }));
    }
    // the gripper never published: the gate holds on it, and no clause reading it has a margin
    expect(parts.gate.state).toBe('hold');
    expect(episodes.episodes?.recorder).toBeDefined();
    const file = await closeLabelledEpisode(rig, dir);

    const entry = (await readIndex(join(dir, INDEX_FILE_NAME))).get(file)!;
    // 50 samples: the robot states, monitored at their stamps (the idle step before the first of
    // them brought no sample and is not counted)
    expect(entry.clauses!['stable_grasp_maintained']).toEqual({
      minRho: null,
      violatedSteps: 0,
      evaluatedSteps: 0,
      missing: [{ signal: 'gripper_contact', steps: 50 }],
      verdict: 'not evaluated',
      notEvaluated: 'not evaluated: signal gripper_contact missing',
    });
    expect(entry.clauses!['joint_torque']).toEqual({
      minRho: expect.any(Number) as number,
      violatedSteps: 0,
      evaluatedSteps: 50,
      missing: [],
      verdict: 'satisfied',
    });
    // the node's time base is recorded: Unix ns at which its clock read 0 (this graph's clock reads Unix seconds)
    expect(entry.versions['ros_time_origin_ns']).toBe('0');
    // re-indexing the file (crash repair, `report --reindex`) reads the same from its end record
    expect((await indexEpisodeFile(join(dir, file), file)).clauses).toEqual(entry.clauses);

    const report = await buildReportFromDir(dir, {
      scorer: new EpisodeScorer(spec),
      bootstrap: { resamples: 50, seed: 1 },
      source: dir,
      generatedAt: 'test',
    });
    const row = report.rows.find((r) => r.file.endsWith(file))!;
    // the report scores the recorded trace: the clause is in the episode's reduced set (not evaluated), not among the satisfied
    expect(row.reducedSet).toContain('stable_grasp_maintained');
    expect(row.violated).not.toContain('stable_grasp_maintained');
  });
});

describe('the Franka node records each robot state at its own stamp (issue 13 item 3)', () => {
  it('robot states arriving 0.1–0.6 ms after their stamp: one frame per state, at the stamp (not the arrival), and the report scores those times', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-stamps-'));
    dirs.push(dir);
    const config = frankaTestConfig({ robotId: 'fr3-stamps', episodesDir: dir });
    const rig = frankaRig(config, (timers) => ({
      recording: { timers, wallClock: () => new Date(Date.UTC(2026, 11, 1, 22, 0, 0)) },
    }));
    const { clock, timers, graph, parts } = rig;
    const episodes = parts.episodes!;
    const state = graph
      .createNode('world')
      .createPublisher<FrankaRobotState>('franka_msgs/msg/FrankaRobotState', config.robotStateTopic, QOS_RELIABLE);
    timers.advance(0.1);
    await episodes.start(clock.now());
    const stamps: number[] = [];
    for (let i = 0; i < 40; i++) {
      const stamp = 100.2 + i * 0.001; // the robot's clock: 1 kHz
      timers.advanceTo(stamp + 0.0001 + (0.0005 * ((i * 7) % 11)) / 10); // delivered late, by a varying delay
      state.publish(robotState(stamp, { q: READY, tau: [5, 5, 5, 5, 1, 1, 1] }));
      stamps.push(stamp);
    }
    const file = await closeLabelledEpisode(rig, dir);
    const trace = await readEpisodeTrace(join(dir, file));
    // the stamps as the node's time base reads them (Unix seconds here: origin 0), exact in ns
    expect(Array.from(trace.times, (t) => Math.round(t * 1e9))).toEqual(stamps.map((s) => Math.round(s * 1e9)));
    expect(Array.from(trace.robustnessTimes)).toEqual(Array.from(trace.times));
  });
});
