/**
 * The MuJoCo testbed's rig (src/rigs/sim.ts) driven through the one Session (src/runtime/session.ts)
 * by the simulator's own tick (drivers/sim runEpisode's gate, monitor and frame hooks), as the demo
 * runs it: real MuJoCo, a short episode, a real episode file read back. What the session records
 * (frames, ρ, proposed and executed chunks, gate transitions, the label) and what it commands the
 * simulated arm (a hold mid-chunk, held chunks) come from the session, not from the episode loop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DlsIk,
  SimWorld,
  loadMujoco,
  policyByName,
  runEpisode,
  so101Scene,
  type EpisodeResult,
} from '../../drivers/sim/index.js';
import { demoClauses, demoPlatform } from '../../src/cli/demo/clauses.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { EpisodeManager, readEpisode, type EpisodeRecord } from '../../src/episode/index.js';
import type { JointChunk } from '../../src/ports/index.js';
import {
  GateStateOnlyFilter,
  SimChunkCapture,
  SimSessionClock,
  SimTickFrame,
  simChunkScreen,
  simRig,
  watchHolds,
  type FirstHold,
} from '../../src/rigs/sim.js';
import { BASELINE_RELEASE_BY, MonitorBank, Session } from '../../src/runtime/index.js';
import type { SignalFrame } from '../../src/schema/signals.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';

const clauses = (() => {
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('\n'));
  const c = demoClauses(spec.spec, demoPlatform('so101'));
  if (!c.ok) throw new Error(c.reason);
  return c.instances;
})();

interface Run {
  result: EpisodeResult;
  arm: FirstHold;
  records: EpisodeRecord[];
  decisions: string[];
  platform: string | undefined;
  gateMode: string | undefined;
  clauseCount: number;
}

describe('sim rig through the session (real MuJoCo)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-sim-rig-'));
  let world: SimWorld;
  let ik: DlsIk;
  beforeAll(async () => {
    const mj = await loadMujoco();
    world = new SimWorld(mj, so101Scene());
    ik = new DlsIk(mj, world);
  }, 60_000);
  afterAll(() => {
    ik?.dispose();
    world?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The self-collision policy (its joint torque crosses the clause at 0.37 s) for 60 ticks: chunks at ticks 0 and 50. */
  async function run(id: string, gating: boolean): Promise<Run> {
    const dt = world.scene.controlDt;
    const bank = MonitorBank.fromClauses(clauses, { minSampleInterval: 0.5 * dt });
    const frames = new SimTickFrame();
    const capture = new SimChunkCapture();
    const arm = watchHolds(capture);
    const { rig, clock } = simRig({
      world,
      platform: 'sim-so101',
      monitors: bank,
      source: frames,
      sink: arm,
      barrier: {
        kind: 'cbf',
        screen: simChunkScreen(world, { gripper: [-Infinity, Infinity], minDt: 0.005 }),
        filter: new GateStateOnlyFilter(),
        maxStateAge: 0.1,
        recheck: null,
      },
    });
    let manager!: EpisodeManager;
    const session = new Session({
      rig,
      gating,
      task: 'sim-pick-cup-into-box',
      log: () => undefined,
      recordHeldChunks: true,
      episodes: (hooks) =>
        (manager = new EpisodeManager({
          dir,
          robotId: 'sim-so101',
          platform: rig.platform,
          task: 'sim-pick-cup-into-box',
          gateMode: gating ? 'on' : 'off',
          clauses: clauses.map((c) => c.clause.id),
          timers: new ManualTimers(new ManualClock(0)),
          episodeId: () => id,
          onFault: hooks.onFault,
          onWritten: hooks.onWritten,
        })),
    });
    await session.start(0);
    const sim = new SimSessionClock(session, clock, frames);
    const decisions: string[] = [];
    const result = runEpisode(world, ik, policyByName('self_collision')!, {
      seed: 1,
      maxTicks: 60,
      gate: (chunk: JointChunk, frame: SignalFrame, now: number) => {
        if (gating) sim.step(now, frame);
        const r = sim.submit(chunk, now);
        decisions.push(r.verdict);
        const forwarded = capture.take();
        return r.verdict === 'executed' || r.verdict === 'filtered' ? forwarded : null;
      },
      monitor: (frame, now) => {
        sim.step(now, frame);
        return capture.armHeld ? 'hold' : 'continue';
      },
      onFrame: (frame, tick) => sim.step(tick * dt + dt, frame),
    });
    const end = result.ticks * dt;
    clock.set(end);
    expect(session.label({ t: end, source: 'predicate', by: 'targetInBox', success: false })).toEqual({ ok: true });
    const path = manager.path!;
    await session.close(end, 'completed');
    const records: EpisodeRecord[] = [];
    let platform: string | undefined;
    let gateMode: string | undefined;
    let clauseCount = -1;
    const scan = await readEpisode(path, (r) => records.push(r), {
      onStart: (s) => {
        platform = s.platform;
        gateMode = s.gateMode;
        clauseCount = s.clauses.length;
      },
    });
    expect(scan.errors).toEqual([]);
    expect(scan.end.kind).toBe('complete');
    return { result, arm, records, decisions, platform, gateMode, clauseCount };
  }

  it('gate on: frames, ρ, chunks, the hold transition and the label are the session’s records; its hold stops the sim arm mid-chunk', async () => {
    const r = await run('sim-rig-gate-on', true);
    const of = <K extends EpisodeRecord['kind']>(k: K) =>
      r.records.filter((x): x is Extract<EpisodeRecord, { kind: K }> => x.kind === k);
    expect(r.platform).toBe('sim-so101');
    expect(r.gateMode).toBe('on');
    // one frame and one ρ per session step: the first chunk's step at t = 0, then one per tick
    expect(of('frame')).toHaveLength(61);
    const rho = of('robustness');
    expect(rho).toHaveLength(61);
    expect(rho[0]!.t).toBe(0);
    expect(rho.every((x) => x.value.rho.length === r.clauseCount)).toBe(true);
    expect(of('proposed-chunk')).toHaveLength(2);
    // the first chunk ran; the gate held at 0.37 s, so the second (t = 50/30 s) was held
    expect(r.decisions).toEqual(['executed', 'held']);
    expect(of('executed-chunk').map((x) => x.value.verdict)).toEqual(['executed', 'held']);
    const holds = r.records.flatMap((x) =>
      x.kind === 'gate' && x.value.kind === 'transition' && x.value.to === 'hold' ? [x] : [],
    );
    expect(holds).toHaveLength(1);
    const hold = holds[0]!;
    expect(hold.value).toMatchObject({ reason: expect.stringMatching(/joint_torque violated/) as string });
    // the session's hold command reached the simulated arm at the transition, mid-chunk
    expect(r.arm.firstHoldT).toBe(hold.t);
    expect(hold.t).toBeGreaterThan(0.3);
    expect(hold.t).toBeLessThan(50 / 30);
    expect(r.result.holds).toBe(2); // the monitor hook's mid-chunk hold, then the held chunk
    expect(of('label').map((x) => x.value)).toEqual([
      expect.objectContaining({ source: 'predicate', by: 'targetInBox', success: false }),
    ]);
  }, 60_000);

  it('gate off (baseline): the same violation is a would-hold — recorded, the arm not held, both chunks forwarded', async () => {
    const r = await run('sim-rig-gate-off', false);
    expect(r.gateMode).toBe('off');
    expect(r.decisions).toEqual(['executed', 'executed']);
    expect(r.arm.firstHoldReason).toBe('');
    expect(r.result.holds).toBe(0);
    const transitions = r.records.flatMap((x) => (x.kind === 'gate' && x.value.kind === 'transition' ? [x.value] : []));
    expect(transitions.some((t) => t.to === 'hold' && /joint_torque violated/.test(t.reason))).toBe(true);
    // no first step at t = 0 in the baseline: one per tick
    expect(r.records.filter((x) => x.kind === 'frame')).toHaveLength(60);
    expect(r.records.filter((x) => x.kind === 'executed-chunk').map((x) => x.value)).toEqual([
      expect.objectContaining({ verdict: 'executed' }),
      expect.objectContaining({ verdict: 'executed' }),
    ]);
    // would-holds end by themselves once their cause is gone (the baseline's own release), or last to the end
    const releases = transitions.filter((t) => t.from === 'hold');
    expect(releases.every((t) => t.reason.includes(BASELINE_RELEASE_BY))).toBe(true);
  }, 60_000);

  it('a step before the simulator presented any frame is a disconnect fault: the gate holds', () => {
    const bank = MonitorBank.fromClauses(clauses);
    const { rig, clock } = simRig({
      world,
      platform: 'sim-so101',
      monitors: bank,
      barrier: { kind: 'none' },
    });
    const session = new Session({ rig, gating: true, task: 't', log: () => undefined });
    new SimSessionClock(session, clock).step(0.1);
    expect(session.gate.holding).toBe(true);
    expect(session.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'disconnect', source: 'sim', detail: expect.stringMatching(/no simulator frame/) as string },
    });
  });
});
