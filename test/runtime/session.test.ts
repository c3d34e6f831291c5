/**
 * The session every platform runs (src/runtime/session.ts), on a rig of test parts: a scripted
 * signal source, a kinematic arm, the planar barrier with the active-set reference solver, real
 * episode files (EpisodeManager in a temp dir) read back afterwards. What a step, a chunk, a
 * label and a storage fault become is the same for every platform, so it is checked here once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChunkCbfFilter, ChunkScreen, chunkToMessage } from '../../src/gate/index.js';
import { EpisodeManager, type EpisodeManagerOptions } from '../../src/episode/episode-manager.js';
import {
  EpisodeRecorder,
  MemoryFileWritable,
  readEpisode,
  type EpisodeRecord,
  type FileWritable,
} from '../../src/episode/index.js';
import { MonitorBank, Session, type PlatformRig } from '../../src/runtime/index.js';
import { DecodedChunkTransport } from '../../src/telemetry/network-worker.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { activeSetSolverFactory } from '../gate/support/active-set-qp.js';
import { sweep } from '../gate/support/planar-arm.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { chunkOf, FILTER_CONFIG, planarModel, planarRecheck, Q0, TORQUE_CLAUSE } from './support/rig.js';
import { ScriptedSource } from './support/scripted-source.js';

const DT = 0.01;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(opts: { gating?: boolean; open?: EpisodeManagerOptions['open']; recordHeldChunks?: boolean } = {}) {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const source = new ScriptedSource();
  source.live.set('max_joint_torque', 1);
  const arm = new KinematicArm(Q0);
  const bank = MonitorBank.fromClauses([TORQUE_CLAUSE]);
  const screen = new ChunkScreen({
    joints: 2,
    maxHorizon: 50,
    qmin: [-3, -3],
    qmax: [3, 3],
    maxAge: 0.2,
    futureTolerance: 0.05,
    minDt: 0.001,
    maxDt: 0.5,
    idMemory: 64,
  });
  const model = planarModel();
  const rig: PlatformRig = {
    platform: 'planar',
    clock,
    source,
    sink: arm,
    joints: arm,
    monitors: bank,
    limits: {
      gate: { requiredSignals: bank.requiredSignals, maxStepGap: 0.25, faultQuietPeriod: 0.5 },
      watchdogTimeout: 0.2,
    },
    barrier: {
      kind: 'cbf',
      screen,
      filter: new ChunkCbfFilter(model, activeSetSolverFactory, FILTER_CONFIG),
      maxStateAge: 0.05,
      recheck: planarRecheck(model),
    },
  };
  const dir = mkdtempSync(join(tmpdir(), 'armguard-session-core-'));
  dirs.push(dir);
  const log: string[] = [];
  let manager!: EpisodeManager;
  const session = new Session({
    rig,
    gating: opts.gating ?? true,
    task: 'reach',
    ...(opts.recordHeldChunks ? { recordHeldChunks: true } : {}),
    log: (l) => log.push(l),
    episodes: (hooks) =>
      (manager = new EpisodeManager({
        dir,
        robotId: 'planar',
        platform: 'planar',
        task: 'reach',
        clauses: ['joint_torque'],
        timers,
        wallClock: () => new Date(Date.UTC(2026, 11, 1, 12, 0, manager ? manager.paths.length : 0)),
        ...(opts.open ? { open: opts.open } : {}),
        onFault: hooks.onFault,
        onWritten: hooks.onWritten,
      })),
  });
  const run = (steps: number): void => {
    for (let k = 0; k < steps; k++) {
      timers.advance(DT);
      arm.tick(clock.now());
      session.step(clock.now());
    }
  };
  return { clock, timers, source, arm, session, run, log, manager: () => manager };
}

async function records(path: string): Promise<EpisodeRecord[]> {
  const out: EpisodeRecord[] = [];
  await readEpisode(path, (r) => out.push(r));
  return out;
}

describe('Session: one session for every platform', () => {
  it('records one frame and one ρ per step, a forwarded chunk as proposed + executed, a held one as a chunk-held event', async () => {
    const s = setup();
    await s.session.start(s.clock.now());
    s.run(10);
    const ok = s.session.submitChunk(
      chunkOf('c1', s.clock.now(), sweep(Q0, [Q0[0]! + 0.05, Q0[1]!], 5), 0.05),
      s.clock.now(),
    );
    expect(ok.verdict).toBe('executed');
    s.run(5);
    s.source.live.set('max_joint_torque', 2.5); // over the 2 N·m clause: hold
    s.run(1);
    expect(s.session.gate.state).toBe('hold');
    const held = s.session.submitChunk(
      chunkOf('c2', s.clock.now(), sweep(Q0, [Q0[0]! + 0.05, Q0[1]!], 5), 0.05),
      s.clock.now(),
    );
    expect(held.verdict).toBe('held');
    const path = s.manager().path!;
    await s.session.close(s.clock.now(), 'test end');

    const recs = await records(path);
    const count = (k: EpisodeRecord['kind']) => recs.filter((r) => r.kind === k).length;
    expect(count('frame')).toBe(16);
    expect(count('robustness')).toBe(16);
    expect(recs.flatMap((r) => (r.kind === 'proposed-chunk' ? [r.value.id] : []))).toEqual(['c1', 'c2']);
    expect(recs.flatMap((r) => (r.kind === 'executed-chunk' ? [[r.value.proposedId, r.value.verdict]] : []))).toEqual([
      ['c1', 'executed'],
    ]);
    const gate = recs.flatMap((r) => (r.kind === 'gate' ? [r.value] : []));
    expect(gate).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'transition',
          to: 'hold',
          reason: expect.stringMatching(/joint_torque/) as string,
        }),
        expect.objectContaining({
          kind: 'event',
          event: 'chunk-held',
          detail: expect.stringMatching(/^c2: /) as string,
        }),
      ]),
    );
  });

  it('recordHeldChunks: a chunk the chunk path held or rejected is also an executed-chunk record with verdict held (the demo arm holds)', async () => {
    const s = setup({ recordHeldChunks: true });
    await s.session.start(s.clock.now());
    s.run(10);
    const ok = s.session.submitChunk(
      chunkOf('c1', s.clock.now(), sweep(Q0, [Q0[0]! + 0.05, Q0[1]!], 5), 0.05),
      s.clock.now(),
    );
    expect(ok.verdict).toBe('executed');
    // out of the screen's joint range: rejected before the gate is asked
    const rejected = s.session.submitChunk(
      chunkOf('c2', s.clock.now(), sweep(Q0, [4, Q0[1]!], 5), 0.05),
      s.clock.now(),
    );
    expect(rejected.verdict).toBe('rejected');
    s.source.live.set('max_joint_torque', 2.5);
    s.run(1);
    const held = s.session.submitChunk(
      chunkOf('c3', s.clock.now(), sweep(Q0, [Q0[0]! + 0.05, Q0[1]!], 5), 0.05),
      s.clock.now(),
    );
    expect(held.verdict).toBe('held');
    const path = s.manager().path!;
    await s.session.close(s.clock.now(), 'test end');
    const recs = await records(path);
    expect(recs.flatMap((r) => (r.kind === 'executed-chunk' ? [[r.value.proposedId, r.value.verdict]] : []))).toEqual([
      ['c1', 'executed'],
      ['c2', 'held'],
      ['c3', 'held'],
    ]);
    // the decision's event is recorded as without the option
    const events = recs.flatMap((r) => (r.kind === 'gate' && r.value.kind === 'event' ? [r.value.event] : []));
    expect(events).toEqual(expect.arrayContaining(['chunk-rejected', 'chunk-held']));
  });

  it('answers chunk requests decoded off-thread through the chunk server bound to it (telemetry transport → runtime, no CLI in between)', async () => {
    const s = setup();
    await s.session.start(s.clock.now());
    s.run(5);
    const answers: string[] = [];
    const transport = new DecodedChunkTransport((p) => answers.push(p));
    s.session.serveChunks(transport);
    transport.deliver({
      ok: true,
      value: chunkToMessage(chunkOf('m1', s.clock.now(), sweep(Q0, [Q0[0]! + 0.05, Q0[1]!], 5), 0.05)),
    });
    transport.deliver({ ok: false, error: 'JSON (position 3): unexpected token', id: 'bad' });
    expect(answers.map((a) => JSON.parse(a) as { id: string; verdict: string })).toEqual([
      expect.objectContaining({ id: 'm1', verdict: 'executed' }),
      expect.objectContaining({ id: 'bad', verdict: 'rejected' }),
    ]);
    expect(s.arm.executed).toHaveLength(1);
    const path = s.manager().path!;
    await s.session.close(s.clock.now(), 'test end');
    const recs = await records(path);
    expect(recs.flatMap((r) => (r.kind === 'proposed-chunk' ? [r.value.id] : []))).toEqual(['m1']);
    expect(
      recs.some(
        (r) =>
          r.kind === 'gate' &&
          r.value.kind === 'event' &&
          r.value.event === 'chunk-rejected' &&
          /^bad: /.test(r.value.detail ?? ''),
      ),
    ).toBe(true);
  });

  it('builds and hands over margins at most once per marginsPeriodS: the only margins throttle (the MQTT link publishes each)', async () => {
    const s = setup();
    await s.session.start(s.clock.now());
    const published: number[] = [];
    s.session.attachTelemetry({
      checkStep: () => undefined,
      marginsPeriodS: 0.05,
      publishMargins: (t, margins) => {
        expect(Object.keys(margins)).toEqual(['joint_torque']);
        published.push(t);
      },
      publishEvent: () => undefined,
      publishEpisode: () => undefined,
      publishLabel: () => undefined,
    });
    s.run(100); // 1 s at 100 Hz
    expect(published.length).toBeGreaterThanOrEqual(19);
    expect(published.length).toBeLessThanOrEqual(21);
    for (let i = 1; i < published.length; i++)
      expect(published[i]! - published[i - 1]!).toBeGreaterThanOrEqual(0.05 - 1e-9);
    await s.session.close(s.clock.now(), 'test end');
  });

  it('finishEpisode labels and closes the episode and, with next, opens the next one (the ROS ~/label_success path)', async () => {
    const s = setup();
    await s.session.start(s.clock.now());
    s.run(3);
    const first = s.manager().path!;
    const r = s.session.finishEpisode({ source: 'operator', by: 'test', success: true }, s.clock.now(), true);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(await r.ended).toMatchObject({ complete: true });
    const second = s.manager().path!;
    expect(second).not.toBe(first);
    s.run(2);
    await s.session.close(s.clock.now(), 'test end');
    const labels = (await records(first)).flatMap((x) => (x.kind === 'label' ? [x.value] : []));
    expect(labels).toEqual([expect.objectContaining({ success: true, by: 'test' })]);
    expect((await records(second)).filter((x) => x.kind === 'frame')).toHaveLength(2);
    expect(s.manager().finished.map((e) => e.state)).toEqual(['complete', 'complete']);
  });

  it('a storage fault holds, refuses labels, survives a release until a write succeeds again, then an operator release arms', async () => {
    let failing = true;
    const s = setup({
      // A disk that is full while `failing` (ENOSPC on write), then has space again.
      open: async (_dir, start, options) => {
        const disk = new MemoryFileWritable();
        const out: FileWritable = {
          write: (b) =>
            failing
              ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
              : disk.write(b),
          sync: () => disk.sync(),
          close: () => disk.close(),
        };
        const recorder = EpisodeRecorder.start(out, start, { ...options, file: `${start.episodeId}.mcap` });
        return { recorder, path: '(memory)', finish: (t, reason) => recorder.end(t, reason) };
      },
    });
    await s.session.start(s.clock.now());
    for (let k = 0; k < 100 && s.session.gate.state !== 'hold'; k++) {
      s.run(10);
      await new Promise((r) => setImmediate(r));
    }
    expect(s.session.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'storage' } });
    expect(s.session.label({ source: 'mqtt', success: true })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/storage is failing/) as string,
    });
    // Long past the fault quiet period: the latched storage fault is re-raised every step.
    s.run(100);
    expect(s.session.release(s.clock.now(), { by: 'test', authorised: true }).ok).toBe(false);
    failing = false;
    for (let k = 0; k < 100 && s.log.every((l) => !l.startsWith('storage writes again')); k++) {
      s.run(10);
      await new Promise((r) => setImmediate(r));
    }
    expect(s.log.some((l) => l.startsWith('storage writes again'))).toBe(true);
    s.run(100);
    expect(s.session.gate.state).toBe('hold'); // the hold stays until an operator releases
    expect(s.session.release(s.clock.now(), { by: 'test', authorised: true }).ok).toBe(true);
    await s.session.close(s.clock.now(), 'test end');
  });
});
