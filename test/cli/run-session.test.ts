/**
 * The `armguard run` session on the emulated SO-101 behind a real socat pty: a hold commands the
 * present position (checked on the emulated servos' registers), and faults — a servo that stops
 * answering, the pty disappearing — end in hold with the cause recorded in the episode file, never
 * a crash. Waits are on conditions with timeouts, never fixed sleeps.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSo101Calibration } from '../../src/calibration/so101.js';
import type { RunSession } from '../../src/cli/compose/session.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import {
  EpisodeRecorder,
  startEpisodeInDir,
  readEpisode,
  type EpisodeRecord,
  type FileWritable,
  type GateRecord,
  type LabelRecord,
} from '../../src/episode/index.js';
import { keysToActions } from '../../src/cli/compose/operator-keys.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { repoRoot } from '../support/paths.js';
import { startEmulatedSession, submitChunk, waitUntil } from '../support/run-session.js';
import { dirname } from 'node:path';
import { appendLabel } from '../../src/episode/append-label.js';
import { buildReportFromDir } from '../../src/report/build-run.js';
import { renderMarkdown } from '../../src/report/render/index.js';
import { EpisodeScorer } from '../../src/safety/index.js';

const CAL_PATH = join(repoRoot, 'calibration/so101-demo.yaml');

const sessions: RunSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop('test cleanup');
});

async function startSession(
  extra: Partial<Parameters<typeof RunSession.start>[0]> = {},
): Promise<{ s: RunSession; log: string[] }> {
  const { s, log } = await startEmulatedSession(extra);
  sessions.push(s);
  return { s, log };
}

/** Resolve once `pred()` holds (checked every 10 ms), fail after `seconds`. */

async function gateRecords(path: string): Promise<GateRecord[]> {
  const out: EpisodeRecord[] = [];
  await readEpisode(path, (r) => out.push(r), { kinds: ['gate'] });
  return out.flatMap((r) => (r.kind === 'gate' ? [r.value] : []));
}

function register(s: RunSession, id: number, name: 'Goal_Position' | 'Present_Position'): number {
  return s.conn.emulated!.emulator.servo(id).getRegister(name);
}

describe('armguard run session (emulated SO-101 behind a pty)', () => {
  it('an e-stop mid-chunk holds the arm where it is: Goal_Position = Present_Position', async () => {
    const { s } = await startSession();
    const q = new Float64Array(6);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(q)), 5, 'a first joint sample');
    expect(s.gate.state).toBe('armed');
    const start = register(s, 1, 'Present_Position');
    // 0.4 rad on the pan joint over 1 s (50 × 20 ms).
    const H = 50;
    const targets = new Float64Array(H * 6);
    for (let k = 0; k < H; k++) {
      targets.set(q, k * 6);
      targets[k * 6] = q[0]! + (0.4 * (k + 1)) / H;
    }
    const r = await submitChunk(
      s,
      { id: 'move', stamp: systemClock.now(), horizon: H, joints: 6, dt: 0.02, targets },
      systemClock.now(),
    );
    expect(['executed', 'filtered'], r.reason).toContain(r.verdict);
    await waitUntil(() => Math.abs(register(s, 1, 'Present_Position') - start) > 40, 5, 'the pan joint to move');

    await s.act('estop');
    expect(s.gate.state).toBe('hold');
    await waitUntil(() => s.conn.arm.holds >= 1, 5, 'the hold command');
    // The hold's read and write are queued on the bus behind at most one state read: after five more
    // state reads it has reached the servos.
    const rx0 = s.conn.bus.counters.rx;
    await waitUntil(() => s.conn.bus.counters.rx > rx0 + 30, 5, 'five more state reads');
    const heldGoal = register(s, 1, 'Goal_Position');
    const fullTarget = 0.4 * (4096 / (2 * Math.PI));
    expect(Math.abs(heldGoal - start)).toBeLessThan(fullTarget - 40); // held mid-motion, not at the chunk's end
    // The rest of the chunk is cancelled: after many more reads the goal is unchanged and every joint rests on its goal.
    const reads = s.conn.bus.counters.rx;
    await waitUntil(() => s.conn.bus.counters.rx > reads + 60, 5, '10 more state reads');
    expect(Math.abs(register(s, 1, 'Goal_Position') - heldGoal)).toBeLessThanOrEqual(3);
    for (const id of [1, 2, 3, 4, 5, 6])
      expect(
        Math.abs(register(s, id, 'Goal_Position') - register(s, id, 'Present_Position')),
        `servo ${id}`,
      ).toBeLessThanOrEqual(3);
    // A release alone does not clear the e-stop; the keyboard e-stop reset (x) does, then the release arms.
    await s.act('release');
    expect(s.gate.state).toBe('hold');
    await s.act('estop-reset');
    await s.act('release');
    expect(s.gate.state).not.toBe('hold');

    const path = s.episodes.path!;
    await s.stop('test done');
    const gate = await gateRecords(path);
    expect(gate).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'transition', to: 'hold', reason: expect.stringMatching(/e-stop/) }),
        expect.objectContaining({ kind: 'transition', from: 'hold' }),
        expect.objectContaining({ kind: 'event', event: 'shutdown-hold', detail: 'test done' }),
      ]),
    );
  }, 30_000);

  it('a servo that stops answering ends in hold with the timeout recorded; release is refused while it persists', async () => {
    const { s, log } = await startSession();
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    s.conn.emulated!.emulator.servo(3).responsive = false;
    await waitUntil(() => s.gate.state === 'hold', 5, 'hold');
    const r = s.pipeline.release(systemClock.now(), { by: 'test', authorised: true });
    expect(r.ok).toBe(false);
    const path = s.episodes.path!;
    await s.stop('test done');
    const gate = await gateRecords(path);
    expect(gate).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'fault',
          fault: expect.objectContaining({ kind: 'timeout', detail: expect.stringMatching(/servo\(s\) 3\b/) }),
        }),
        expect.objectContaining({ kind: 'transition', to: 'hold', reason: expect.stringMatching(/timeout/) }),
      ]),
    );
    expect(log.some((l) => /gate \w+ → hold: .*timeout/.test(l))).toBe(true);
  }, 30_000);

  it('the serial port disappearing (socat killed) ends in hold with the disconnect recorded, and shutdown still closes the episode', async () => {
    const { s } = await startSession();
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    await s.conn.emulated!.pty.kill();
    await waitUntil(() => s.gate.state === 'hold', 5, 'hold');
    const path = s.episodes.path!;
    await s.stop('test done');
    const gate = await gateRecords(path);
    expect(gate).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'fault', fault: expect.objectContaining({ kind: 'disconnect' }) }),
        expect.objectContaining({ kind: 'transition', to: 'hold', reason: expect.stringMatching(/disconnect/) }),
      ]),
    );
    expect(s.episodes.finished).toHaveLength(1);
    expect(s.episodes.finished[0]!.state).toBe('complete');
  }, 30_000);

  it('operator keys and MQTT labels: s labels success and closes the episode, n starts the next file; the dashboard serves its page', async () => {
    expect(keysToActions('Xe r\u0003snfq')).toEqual([
      'estop-reset',
      'estop',
      'estop',
      'release',
      'quit',
      'success',
      'new-episode',
      'failure',
      'quit',
    ]);
    const { s } = await startSession({
      dashboard: { port: 0, viewer: { username: 'viewer', password: 'viewer-secret' } },
    });
    const page = await fetch(s.dashboard!.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);

    const alice = await RecordingClient.connect(s.brokerUrl!, 'alice', 'alice-secret');
    await alice.subscribe(topicFor('arm9', 'labels'));
    await alice.publish(
      topicFor('arm9', 'cmd/label'),
      JSON.stringify({ v: 1, note: 'jello box dented', manualViolations: ['stable_grasp_maintained'] }),
    );
    await alice.waitFor((t) => t === topicFor('arm9', 'labels'), 5, 'the label echo');
    await alice.end();
    const first = s.episodes.path!;
    await s.act('success');
    expect(s.episodes.recorder).toBeUndefined();
    await s.act('new-episode');
    const second = s.episodes.path!;
    expect(second).not.toBe(first);
    await s.act('failure');
    await s.stop('test done');

    const labels = async (path: string): Promise<LabelRecord[]> => {
      const out: LabelRecord[] = [];
      await readEpisode(path, (r) => r.kind === 'label' && out.push(r.value), { kinds: ['label'] });
      return out;
    };
    expect(await labels(first)).toEqual([
      expect.objectContaining({
        source: 'mqtt',
        note: 'jello box dented',
        manual: { stable_grasp_maintained: 'violated' },
      }),
      expect.objectContaining({ source: 'operator', success: true }),
    ]);
    expect(await labels(second)).toEqual([expect.objectContaining({ source: 'operator', success: false })]);
    const index = readFileSync(join(s.episodes.paths[0]!, '..', 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { success?: boolean; state: string });
    expect(index.map((e) => [e.success, e.state])).toEqual([
      [true, 'complete'],
      [false, 'complete'],
    ]);
  }, 30_000);

  it('a full disk while recording (ENOSPC on write) ends in hold with the storage cause, and shutdown still completes', async () => {
    const enospc: FileWritable = {
      write: async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
      sync: async () => undefined,
      close: async () => undefined,
    };
    const { s, log } = await startSession({
      openEpisode: async (_dir, start, options) => {
        const recorder = EpisodeRecorder.start(enospc, start, { ...options, file: `${start.episodeId}.mcap` });
        return { recorder, path: '(full disk)', finish: (t, reason) => recorder.end(t, reason) };
      },
    });
    await waitUntil(() => s.gate.state === 'hold', 5, 'hold');
    expect(s.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'storage' } });
    expect(log.some((l) => /storage fault: .*ENOSPC.*holding/.test(l))).toBe(true);
    expect(log.some((l) => /gate \w+ → hold: .*ENOSPC/.test(l))).toBe(true);
    await s.stop('test done');
    expect(s.episodes.finished[0]).toMatchObject({ state: 'truncated' });
  }, 30_000);

  it('--dead-man: no operator heartbeat holds the arm from the start; with heartbeats flowing an MQTT release is accepted', async () => {
    const { s } = await startSession({ deadManS: 0.3 });
    await waitUntil(() => s.gate.state === 'hold', 5, 'the dead-man hold');
    const cause = s.gate.holdCause;
    expect(cause?.kind === 'driver-fault' && cause.fault.kind).toBe('remote-heartbeat');
    const operator = await RecordingClient.connect(s.brokerUrl!, 'alice', 'alice-secret', 4);
    const beats = setInterval(
      () => void operator.publish(topicFor('arm9', 'cmd/heartbeat'), JSON.stringify({ v: 1, seq: 1 })),
      50,
    );
    try {
      // the fault stops being re-reported once heartbeats arrive; release after its quiet period
      let released = false;
      await waitUntil(
        () => {
          if (!released && s.gate.state === 'hold') released = s.telemetry!.remote.release().ok;
          return s.gate.state !== 'hold';
        },
        10,
        'a release accepted while heartbeats flow',
      );
    } finally {
      clearInterval(beats);
      await operator.end();
    }
    // heartbeats stop: the dead-man holds again
    await waitUntil(() => s.gate.state === 'hold', 5, 'the dead-man hold after heartbeats stopped');
  }, 30_000);

  it("the calibration's thresholds are the ones monitored: a 0.0001 N·m joint-torque ceiling holds the arm at rest, and the episode records it", async () => {
    const cal = parseSo101Calibration(readFileSync(CAL_PATH, 'utf8'), CAL_PATH);
    if (!cal.ok) throw new Error('demo calibration does not parse');
    const jt = cal.value.thresholds.joint_torque!;
    const strict = { ...cal.value, thresholds: { ...cal.value.thresholds, joint_torque: { ...jt, value: 0.0001 } } };
    const { s } = await startSession({ calibration: strict, calibrationFile: 'strict.yaml' });
    expect(s.runtime.thresholds).toEqual(
      expect.arrayContaining([
        { clause: 'joint_torque', tau: 0.0001, unit: 'N·m', from: 'calibration strict.yaml' },
        // the calibration's contact threshold (1 N), not the library's 200 N an SO-101 cannot reach
        { clause: 'max_contact_force', tau: 1, unit: 'N', from: 'calibration strict.yaml' },
      ]),
    );
    // gravity alone loads the shoulder far above 0.0001 N·m: the monitor must see it
    await waitUntil(() => s.gate.state === 'hold', 10, 'a joint_torque hold');
    const path = s.episodes.path!;
    await s.stop('test done');
    const gate = await gateRecords(path);
    expect(gate).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'transition',
          to: 'hold',
          reason: expect.stringMatching(/joint_torque violated/),
        }),
      ]),
    );
    const start = (await readEpisode(path, () => {}, { kinds: [] })).start!;
    expect(start.thresholds?.joint_torque).toEqual({ tau: 0.0001, unit: 'N·m', from: 'calibration strict.yaml' });
    // the report scores the episode with the threshold it was monitored with, and shows it
    await appendLabel(path, { success: true });
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) throw new Error('spec');
    const r = await buildReportFromDir(dirname(path), {
      scorer: new EpisodeScorer(spec.spec),
      bootstrap: { resamples: 10, seed: 1 },
      source: 'test',
      generatedAt: 'test',
      worst: 0,
    });
    expect(r.monitoredThresholds).toEqual(
      expect.arrayContaining([{ clauseId: 'joint_torque', tau: 0.0001, from: 'calibration strict.yaml', episodes: 1 }]),
    );
    expect(r.summary.clauses.find((c) => c.clauseId === 'joint_torque')!.rate.k).toBe(1);
    expect(renderMarkdown(r)).toMatch(/\| joint_torque \| 0\.0001 \| calibration strict\.yaml \| 1 \|/);
  }, 30_000);

  it('--gate off is a baseline run: chunks reach the servos unfiltered, the e-stop still holds, the episode says gate off', async () => {
    const { s } = await startSession({ gating: false });
    const q = new Float64Array(6);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(q)), 5, 'a first joint sample');
    const start = register(s, 1, 'Present_Position');
    const H = 25;
    const targets = new Float64Array(H * 6);
    for (let k = 0; k < H; k++) {
      targets.set(q, k * 6);
      targets[k * 6] = q[0]! + (0.3 * (k + 1)) / H;
    }
    // Through MQTT as the policy does, so the session records the proposed and executed chunk.
    const policy = await RecordingClient.connect(s.brokerUrl!, 'policy', 'policy-secret');
    await policy.subscribe(topicFor('arm9', 'chunk/result'));
    const rows = Array.from({ length: H }, (_, k) => Array.from(targets.subarray(k * 6, k * 6 + 6)));
    // Stamped on the policy's own clock (another machine: 12.5 s since its start), not armguard's.
    await policy.publish(
      topicFor('arm9', 'chunk/request'),
      JSON.stringify({ v: 1, id: 'move', stamp: 12.5, horizon: H, joints: 6, dt: 0.02, targets: rows }),
    );
    await policy.waitFor((t) => t === topicFor('arm9', 'chunk/result'), 5, 'the chunk result');
    await policy.end();
    const r = JSON.parse(policy.messages.find((m) => m.topic === topicFor('arm9', 'chunk/result'))!.payload) as {
      verdict: string;
      code: string;
      targets: number[][];
    };
    expect(r).toMatchObject({ verdict: 'executed', code: 'gate-off' });
    expect(r.targets).toEqual(rows);
    await waitUntil(() => Math.abs(register(s, 1, 'Present_Position') - start) > 40, 5, 'the pan joint to move');
    const bad = targets.slice();
    bad[3] = NaN;
    expect(
      s.pipeline.submitChunk(
        { id: 'nan', stamp: systemClock.now(), horizon: H, joints: 6, dt: 0.02, targets: bad },
        systemClock.now(),
      ),
    ).toMatchObject({ verdict: 'rejected', code: 'non-finite' });
    await s.act('estop');
    await waitUntil(() => s.conn.arm.holds >= 1, 5, 'the hold command');
    expect(
      s.pipeline.submitChunk(
        { id: 'after-stop', stamp: systemClock.now(), horizon: 1, joints: 6, dt: 0.02, targets: targets.slice(0, 6) },
        systemClock.now(),
      ),
    ).toMatchObject({ verdict: 'held' });
    const path = s.episodes.path!;
    await s.stop('test done');
    const executed: unknown[] = [];
    const scan = await readEpisode(
      path,
      (rec) => {
        if (rec.kind === 'executed-chunk') executed.push(rec.value);
      },
      { kinds: ['executed-chunk'] },
    );
    expect(scan.start).toMatchObject({
      gateMode: 'off',
      versions: {
        clauseLibrary: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as string,
        tasksFile: expect.stringMatching(/spec\/tasks\.yaml$/) as string,
      },
    });
    expect(executed).toEqual([expect.objectContaining({ proposedId: 'move', verdict: 'executed' })]);
    const gate = await gateRecords(path);
    expect(gate).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'transition', to: 'hold', reason: expect.stringMatching(/e-stop/) }),
      ]),
    );
    const offset = gate.find((g) => g.kind === 'event' && g.event === 'policy-clock-offset');
    expect(offset, 'the policy clock offset is recorded').toBeDefined();
    const recorded = Number((offset as { detail: string }).detail.split(' ')[0]);
    expect(Math.abs(recorded - (systemClock.now() - 12.5))).toBeLessThan(30); // gate clock − 12.5, up to the test's duration
  }, 30_000);
  it("a new episode that cannot be opened (key 'n') holds the gate with the reason instead of an unhandled rejection", async () => {
    let opened = 0;
    const { s, log } = await startSession({
      openEpisode: async (dir, start, options) => {
        if (++opened > 1) throw new Error('EACCES: permission denied');
        return startEpisodeInDir(dir, start, options);
      },
    });
    await s.act('new-episode'); // must not reject
    expect(s.gate.state).toBe('hold');
    expect(s.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'storage', detail: expect.stringMatching(/new-episode failed: EACCES/) as string },
    });
    expect(log.some((l) => /new-episode failed: EACCES.*holding/.test(l))).toBe(true);
    await s.stop('test done');
  }, 30_000);
  it('a control step that throws every tick holds the gate with the cause and logs it once per second, not every tick', async () => {
    const { s, log } = await startSession({
      openEpisode: async (dir, start, options) => {
        const ep = await startEpisodeInDir(dir, start, options);
        ep.recorder.frame = () => {
          throw new Error('recorder broke');
        };
        return ep;
      },
    });
    await waitUntil(() => s.gate.state === 'hold', 5, 'hold');
    expect(s.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'internal', source: 'control loop', detail: 'control loop: recorder broke' },
    });
    await waitUntil(() => log.filter((l) => l.includes('recorder broke')).length >= 1, 2, 'log line');
    const t0 = systemClock.now();
    await waitUntil(() => systemClock.now() - t0 > 0.3, 2, '0.3 s of steps'); // ~30 failing steps at 100 Hz
    expect(log.filter((l) => l === 'control loop: recorder broke — holding')).toHaveLength(1);
    await s.stop('test done');
  }, 30_000);
});
