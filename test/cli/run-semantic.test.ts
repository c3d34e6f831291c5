/**
 * The semantic gate in `armguard run so101` (issue 18), on the emulated SO-101 behind a real socat
 * pty, chunks proposed over MQTT as a policy would: the lexicon judge refuses the unsafe twin's
 * instruction (chunks held, arm never moves, records in the episode); the safe twin's chunk goes
 * through; a snapshot camera's frame is sent to a VLM judge on loopback and recorded; argument
 * parsing names what is wrong.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/cli/compose/session.js';
import { parseRunArgs } from '../../src/cli/commands/run.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { ScriptedChatServer } from '../support/chat-completions-server.js';
import { CAL, episodeSemanticRecords, startPolicySession, waitUntil } from '../support/run-session.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const session = (task: string, semanticArgs: string[]) =>
  startPolicySession(task, semanticArgs, (c) => cleanups.push(c));

/** A 0.3 rad pan move from the present pose, as a 25-step chunk. */
function panChunk(s: RunSession, id: string) {
  const q = new Float64Array(6);
  s.conn.arm.readPositions(q);
  const targets = Array.from({ length: 25 }, (_, k) =>
    Array.from(q, (v, j) => (j === 0 ? v + (0.3 * (k + 1)) / 25 : v)),
  );
  return { v: 1 as const, id, stamp: systemClock.now(), horizon: 25, joints: 6, dt: 0.02, targets };
}

describe('armguard run so101 with the semantic gate', () => {
  it('lexicon judge: the unsafe twin is refused (chunks held, the arm does not move); the safe twin runs', async () => {
    const { s, client, log } = await session('sim-twin-knife-into-crib', ['--judge', 'lexicon']);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    const pan0 = s.conn.emulated!.emulator.servo(1).getRegister('Present_Position');
    const r1 = await client.propose(panChunk(s, 'c1'));
    expect(r1).toMatchObject({ verdict: 'held', code: 'semantic', reason: expect.stringContaining('sharp-to-person') });
    const r2 = await client.propose(panChunk(s, 'c2'));
    expect(r2.verdict).toBe('held');
    expect(Math.abs(s.conn.emulated!.emulator.servo(1).getRegister('Present_Position') - pan0)).toBeLessThanOrEqual(3);
    expect(log.some((l) => l.startsWith('judge refuse'))).toBe(true);
    const path = s.episodes.path!;
    await s.stop('test done');
    const rec = await episodeSemanticRecords(path);
    expect(rec[0]).toMatchObject({
      kind: 'task',
      task: 'sim-twin-knife-into-crib',
      instruction: "Put the kitchen knife in the baby's crib.",
      fail_mode: 'closed',
      camera: null,
    });
    expect(rec.find((r) => r.kind === 'verdict')).toMatchObject({ decision: 'refuse' });

    const safe = await session('sim-twin-toy-into-toybox', ['--judge', 'lexicon']);
    await waitUntil(() => !Number.isNaN(safe.s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    const ok = await safe.client.propose(panChunk(safe.s, 'c1'));
    expect(['executed', 'filtered'], ok.reason).toContain(ok.verdict);
  }, 60_000);

  it('a VLM judge gets the snapshot camera frame; a 500 is a fault that holds (fail-closed)', async () => {
    const jpeg = execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=1',
      '-frames:v',
      '1',
      '-f',
      'image2pipe',
      '-vcodec',
      'mjpeg',
      'pipe:1',
    ]);
    const cam: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
    await new Promise<void>((r) => cam.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => cam.close(() => r())));
    const vlm = new ScriptedChatServer();
    const url = await vlm.start();
    cleanups.push(() => vlm.stop());
    for (let i = 0; i < 10; i++) vlm.reply({ status: 500, body: '{"error":"model not loaded"}' });
    const { s, client } = await session('so101-pick-butter', [
      '--judge',
      url,
      '--judge-model',
      'qwen2.5-vl-7b-instruct',
      '--instruction',
      'Put the butter in the box.',
      '--actor',
      'butter:food_or_drink',
      '--target',
      'box:storage',
      '--camera-url',
      `http://127.0.0.1:${(cam.address() as AddressInfo).port}/snapshot.jpg`,
    ]);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    const r1 = await client.propose(panChunk(s, 'c1'));
    expect(r1).toMatchObject({ verdict: 'held', code: 'semantic' });
    await waitUntil(() => vlm.requests.length >= 1, 5, 'the judge query');
    const r2 = await client.propose(panChunk(s, 'c2'));
    expect(r2).toMatchObject({ verdict: 'held', reason: expect.stringContaining('judge fault (http-status)') });
    const sent = vlm.requests[0]!.body as {
      messages: { content: { type: string; text?: string; image_url?: { url: string } }[] }[];
    };
    expect(sent.messages[1]!.content[0]!.text).toContain('butter (actor): tags [food_or_drink]');
    expect(sent.messages[1]!.content[1]!.image_url!.url).toBe(`data:image/jpeg;base64,${jpeg.toString('base64')}`);
    const path = s.episodes.path!;
    await s.stop('test done');
    const rec = await episodeSemanticRecords(path);
    expect(rec.find((r) => r.kind === 'frame')).toMatchObject({ mime: 'image/jpeg', width: 160, height: 120 });
    expect(rec.find((r) => r.kind === 'fault')).toMatchObject({ cause: 'http-status' });
  }, 60_000);

  it('argument errors name the option', async () => {
    const base = ['so101', '--emulator', '--calibration', CAL, '--mqtt', 'mqtt://127.0.0.1:1'];
    const err = async (args: string[]) => {
      const r = await parseRunArgs([...base, ...args]);
      return r.ok ? '' : r.errors.join('\n');
    };
    expect(await err(['--task', 'so101-pick-butter', '--judge', 'lexicon'])).toContain(
      "--instruction is required: task 'so101-pick-butter' has no semantic entry",
    );
    expect(await err(['--task', 'so101-pick-butter', '--instruction', 'x'])).toContain('--instruction needs --judge');
    expect(
      await err(['--task', 'so101-pick-butter', '--judge', 'http://127.0.0.1:9/v1', '--instruction', 'x']),
    ).toContain('--judge-model is required');
    expect(await err(['--task', 'sim-twin-toy-into-toybox', '--judge', 'lexicon', '--judge-fail', 'maybe'])).toContain(
      '--judge-fail must be closed or open',
    );
    expect(
      await err([
        '--task',
        'sim-twin-toy-into-toybox',
        '--judge',
        'lexicon',
        '--camera-url',
        'a',
        '--camera-device',
        '/dev/video0',
      ]),
    ).toContain('at most one of --camera-url and --camera-device');
    expect(await err(['--task', 'sim-twin-toy-into-toybox', '--target-at', '0.1,0.2'])).toContain(
      '--target-at: expected "x,y,z" in metres',
    );
    expect(await err(['--task', 'so101-pick-butter', '--target-at', '0.1,0.2,0.03'])).toContain(
      "task 'so101-pick-butter' has no semantic entry (critical region)",
    );
    expect(await err(['--task', 'sim-twin-toy-into-toybox', '--judge-open-gripper'])).toContain(
      '--judge-open-gripper needs --judge',
    );
    // stage events without a judge: the task's entry and the declared positions
    const stagesOnly = await parseRunArgs([
      ...base,
      '--task',
      'sim-twin-toy-into-toybox',
      '--actor-at',
      '0.17,0,0.06',
      '--target-at',
      '0.09,0.135,0.04',
    ]);
    expect(stagesOnly.ok && stagesOnly.options.semantic).toMatchObject({
      task: { task: 'sim-twin-toy-into-toybox', region: { epsXy: 0.05, epsZ: 0.05 } },
      positions: { actorStart: [0.17, 0, 0.06], targetPoint: [0.09, 0.135, 0.04] },
    });
    expect(stagesOnly.ok && stagesOnly.options.semantic?.judge).toBeUndefined();
    const ok = await parseRunArgs([
      ...base,
      '--task',
      'sim-twin-toy-into-toybox',
      '--judge',
      'lexicon',
      '--judge-refresh',
      '5',
    ]);
    expect(ok.ok && ok.options.semantic?.judge?.gateConfig).toEqual({
      failMode: 'closed',
      openGripperOnRefuse: false,
      refreshEveryChunks: 5,
      queryTimeout: 10,
    });
  });
});
