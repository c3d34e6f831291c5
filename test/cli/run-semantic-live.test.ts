/**
 * Issue 18 on a live `armguard run so101` (emulated SO-101 behind a real socat pty, chunks over
 * MQTT as a policy sends them): stage events t_attempt → t_commit → t_success computed from the
 * arm's joint state (TCP through the SO-101 kinematics) with the task's critical region and the
 * declared actor/target positions, recorded in the episode; the gripper opened on a refusal with
 * --judge-open-gripper; a judge fault published on the MQTT events topic with its cause.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSo101Calibration } from '../../src/calibration/so101.js';
import { connectEmulatedSo101 } from '../../src/cli/compose/so101-arm.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { ForwardKinematics, SO101_CHAIN, SO101_FRAMES, TF } from '../../src/kinematics/index.js';
import { systemClock, systemTimers } from '../../src/platform/system-clock.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { ScriptedChatServer } from '../support/chat-completions-server.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { buildReportFromDir } from '../../src/report/build-run.js';
import { renderEpisodesCsv } from '../../src/report/render/index.js';
import { EpisodeScorer } from '../../src/safety/index.js';
import {
  CAL,
  episodeGateRecords,
  episodeSemanticRecords,
  startPolicySession,
  waitUntil,
} from '../support/run-session.js';

const cal = (() => {
  const c = parseSo101Calibration(readFileSync(CAL, 'utf8'), CAL);
  if (!c.ok) throw new Error('calibration');
  return c.value;
})();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** minMaxAge 1 s: these sessions drive the arm through whole tasks on a loaded machine. */
const session = (task: string, args: string[]) =>
  startPolicySession(task, args, (c) => cleanups.push(c), { minMaxAge: 1 });

/** The emulated arm's start pose (it stands at mid-range), read through the real driver. */
async function startPose(): Promise<Float64Array> {
  const c = await connectEmulatedSo101({ calibration: cal, clock: systemClock, timers: systemTimers });
  if (!c.ok) throw new Error('emulator');
  try {
    const r = await c.value.arm.readState();
    if (!r.ok) throw new Error('read');
    const q = new Float64Array(6);
    c.value.arm.readPositions(q);
    return q;
  } finally {
    await c.value.close();
  }
}

function tcpAt(q: ArrayLike<number>): [number, number, number] {
  const fk = new ForwardKinematics(SO101_CHAIN);
  fk.compute(Float64Array.from(q));
  const o = TF * SO101_FRAMES.tcp;
  return [fk.frames[o + 9]!, fk.frames[o + 10]!, fk.frames[o + 11]!];
}

const PAN = 0.3;

function panChunk(q: Float64Array, id: string) {
  const targets = Array.from({ length: 25 }, (_, k) =>
    Array.from(q, (v, j) => (j === 0 ? v + (PAN * (k + 1)) / 25 : v)),
  );
  return { v: 1 as const, id, stamp: systemClock.now(), horizon: 25, joints: 6, dt: 0.02, targets };
}

const xyz = (p: readonly number[]) => p.map((v) => v.toFixed(4)).join(',');

describe('live stage events, gripper-open on refusal and judge faults on MQTT (run so101)', () => {
  it('attempt near the declared actor, commit when the TCP (from the joint state) enters the critical region, success at the label — recorded in order', async () => {
    const q0 = await startPose();
    const p0 = tcpAt(q0);
    const p1 = tcpAt(Array.from(q0, (v, j) => (j === 0 ? v + PAN : v)));
    // The region (ε_xy = ε_z = 0.05 m for this twin) around p1 does not contain p0: the pan moves the TCP ~0.1 m.
    expect(Math.hypot(p1[0] - p0[0], p1[1] - p0[1])).toBeGreaterThan(0.07);
    const { s, client } = await session('sim-twin-toy-into-toybox', [
      '--judge',
      'lexicon',
      '--actor-at',
      xyz([p0[0], p0[1], p0[2] - 0.05]),
      '--target-at',
      xyz(p1),
    ]);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    const path = s.episodes.path!;
    // Held until the lexicon's verdict (fail-closed), then the chunk runs.
    let r = await client.propose(panChunk(q0, 'c0'));
    for (let i = 1; r.verdict === 'held' && i < 40; i++) {
      await new Promise((res) => setTimeout(res, 50));
      // A read cycle slowed by a loaded host latches a staleness hold: release it (the operator's job).
      if (r.code !== 'semantic' && s.gate.holding) await s.act('release');
      r = await client.propose(panChunk(q0, `c${i}`));
    }
    expect(['executed', 'filtered'], r.reason).toContain(r.verdict);
    const proposedAt = systemClock.now();
    await waitUntil(
      () => {
        const p = new Float64Array(3);
        s.conn.arm.mapping.tcp(p);
        return Math.hypot(p[0]! - p1[0], p[1]! - p1[1]) < 0.02;
      },
      10,
      'the TCP at the target',
    );
    await new Promise((res) => setTimeout(res, 100));
    await s.act('success');
    const rec = await episodeSemanticRecords(path);
    expect(rec[0]).toMatchObject({
      kind: 'task',
      task: 'sim-twin-toy-into-toybox',
      twin: 'knife-crib',
      variant: 'safe',
      region: { eps_xy: 0.05, eps_z: 0.05 },
      stage_events: true,
      eps_attempt: 0.1,
    });
    const stages = rec.filter((x) => x.kind === 'stage');
    expect(stages.map((x) => x['stage'])).toEqual(['attempt', 'commit', 'success']);
    const [att, com, suc] = stages.map((x) => x.t);
    expect(com!).toBeGreaterThan(att!);
    expect(com!).toBeGreaterThanOrEqual(proposedAt - 0.6); // not before the chunk moved the arm
    expect(suc!).toBeGreaterThan(com!);
    const summary = rec.find((x) => x.kind === 'stages')!;
    expect(summary).toMatchObject({ attempt: att, commit: com, success: suc });
    expect(summary['observed_steps'], JSON.stringify(summary)).toBeGreaterThan(20);
    expect(summary['unobserved_steps'], JSON.stringify(summary)).toBeLessThan(summary['observed_steps'] as number); // stale reads on a loaded host are counted, not evaluated

    // The report: episodes.csv's semantic columns (seconds since the episode started) and the twin table.
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) throw new Error('spec');
    const dir = dirname(path);
    const report = await buildReportFromDir(dir, {
      scorer: new EpisodeScorer(spec.spec),
      bootstrap: { resamples: 50, seed: 1 },
      source: dir,
      generatedAt: 'test',
    });
    const [head, row] = renderEpisodesCsv(report.rows)
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const col = (k: string) => row![head!.indexOf(k)]!;
    expect([
      col('twin'),
      col('twin_variant'),
      col('hazard_category'),
      col('judge_model'),
      col('judge_verdict'),
      col('judge_refused'),
      col('stages_observed'),
    ]).toEqual(['knife-crib', 'safe', 'personal', 'lexicon', 'allow', 'false', 'true']);
    const t0 = rec[0]!.t;
    expect(Number(col('t_attempt_s'))).toBeCloseTo(att! - t0, 6);
    expect(Number(col('t_commit_s'))).toBeCloseTo(com! - t0, 6);
    expect(Number(col('t_success_s'))).toBeCloseTo(suc! - t0, 6);
    expect(Number(col('judge_latency_mean_s'))).toBeLessThan(0.1);
    const all = report.semantic!.rows.find((r) => r.kind === 'all')!;
    expect(all.metrics).toMatchObject({
      sr_safe: 1,
      attempt_safe: 1,
      commit_safe: 1,
      episodes_safe: 1,
      episodes_unsafe: 0,
      judge_fpr: 0,
    });
  }, 60_000);

  it('--judge-open-gripper: a refusal holds the arm and opens the gripper servo to its calibrated open end', async () => {
    const { s } = await session('sim-twin-knife-into-crib', ['--judge', 'lexicon', '--judge-open-gripper']);
    const gripper = s.conn.emulated!.emulator.servo(6);
    // The open end is the gripper's calibrated range_max (LeRobot RANGE_0_100 = 100).
    const open = cal.lerobot['gripper'].range_max;
    // The emulated servo powers up with its goal at mid-range (2048, drivers/feetech/emulator/servo.ts), far
    // from the open end. (Reading the goal here raced the refusal: on a quiet host the gripper was open already.)
    expect(Math.abs(2048 - open)).toBeGreaterThan(50);
    await waitUntil(() => gripper.getRegister('Goal_Position') === open, 10, 'the gripper goal at its open end');
    const pan = s.conn.emulated!.emulator.servo(1);
    expect(Math.abs(pan.getRegister('Goal_Position') - pan.getRegister('Present_Position'))).toBeLessThanOrEqual(3);
    const path = s.episodes.path!;
    await s.stop('test done');
    const rec = await episodeSemanticRecords(path);
    expect(rec.find((x) => x.kind === 'decision' && x['detail'] === 'gripper opened (refusal)')).toBeDefined();
  }, 60_000);

  it('a judge fault is published on the MQTT events topic with its cause', async () => {
    const vlm = new ScriptedChatServer();
    const url = await vlm.start();
    cleanups.push(() => vlm.stop());
    for (let i = 0; i < 10; i++) vlm.reply({ status: 500, body: '{"error":"model not loaded"}' });
    const { s } = await session('sim-twin-toy-into-toybox', [
      '--judge',
      url,
      '--judge-model',
      'qwen2.5-vl-7b-instruct',
    ]);
    const viewer = await RecordingClient.connect(s.brokerUrl!, 'viewer', 'viewer-secret');
    cleanups.push(() => viewer.client.endAsync());
    await viewer.subscribe(topicFor('arm7', 'events'));
    // The first query went out at episode start (before the viewer subscribed): the next episode asks again.
    await s.act('new-episode');
    await waitUntil(
      () => viewer.messages.some((m) => m.payload.includes('judge (http-status)')),
      10,
      'the judge fault on MQTT',
    );
    const ev = JSON.parse(viewer.messages.find((m) => m.payload.includes('judge (http-status)'))!.payload) as {
      kind: string;
      detail: string;
    };
    expect(ev.kind).toBe('fault');
    expect(ev.detail).toMatch(
      /^judge \(http-status\) from openai:qwen2\.5-vl-7b-instruct@http:\/\/127\.0\.0\.1:\d+\/v1\S*: HTTP 500/,
    );
    // … and in the episode's gate records, as a fault of kind judge, like every other fault
    const path = s.episodes.path!;
    await s.stop('test done');
    const gate = await episodeGateRecords(path);
    expect(gate.find((g) => 'fault' in g && (g.fault as { kind: string }).kind === 'judge')).toMatchObject({
      kind: 'fault',
      fault: { kind: 'judge', cause: 'http-status' },
    });
  }, 60_000);
});
