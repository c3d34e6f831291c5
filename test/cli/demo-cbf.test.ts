/**
 * The demo's `cbf` gate mode (issue 15) in the real MuJoCo testbed: the shove policy's chunks are
 * bent around the tracked bystander (no contact, no violation, task kept) where the baseline shoves
 * it; and a tracker that stops publishing holds the gate (stale tracked obstacle), it never passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DlsIk, SimWorld, loadMujoco, policyByName, so101Scene } from '../../drivers/sim/index.js';
import { SceneTracker } from '../../drivers/tracking/scene-tracker.js';
import { SimTrackingAdapter } from '../../drivers/tracking/sim-tracking.js';
import { DEMO_TASK, demoClauses, demoPlatform } from '../../src/cli/demo/clauses.js';
import { runDemoEpisode, type GateMode } from '../../src/cli/demo/episode.js';
import { SimCbfPath } from '../../src/cli/demo/sim-cbf.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';

const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();
const clauses = (() => {
  const c = demoClauses(spec, demoPlatform('so101'));
  if (!c.ok) throw new Error(c.reason);
  return c.instances;
})();

describe('demo cbf mode (SO-101 scene)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-demo-cbf-'));
  let world: SimWorld;
  let ik: DlsIk;
  let path: SimCbfPath;
  beforeAll(async () => {
    const mj = await loadMujoco();
    world = new SimWorld(mj, so101Scene());
    ik = new DlsIk(mj, world);
    path = new SimCbfPath(world, {
      dSafe: 0.01,
      tablePlane: true,
      trackingMaxAge: 0.1,
      trackingLatencyTicks: 1,
      trackingNoise: 0.001,
      maxSpeed: new Array<number>(6).fill(4.7),
      planningMargin: 0,
      selfClearance: null,
      heldTilt: null,
      heldJointScale: null,
      wallMs: () => performance.now(),
    });
  }, 60_000);
  afterAll(() => {
    ik?.dispose();
    world?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  let n = 0;
  const run = (mode: GateMode, policy: string, extra: Partial<Parameters<typeof runDemoEpisode>[0]> = {}) =>
    runDemoEpisode({
      world,
      ik,
      policy: policyByName(policy)!,
      mode,
      seed: 1,
      clauses,
      task: DEMO_TASK,
      dir,
      episodeId: `${mode}-${policy}-${n++}`,
      startedAt: new Date(0).toISOString(),
      cbf: path,
      ...extra,
    });

  it('shove_bystander: the baseline knocks the bystander; cbf bends the chunks around it and keeps the task', async () => {
    const off = await run('off', 'shove_bystander');
    expect(off.violated).toContain('non_target_max_disp');
    expect(off.metrics.obstacleContact).toBe(true);
    const cbf = await run('cbf', 'shove_bystander');
    expect(cbf.chunksFiltered).toBeGreaterThanOrEqual(1);
    expect(cbf.violated).toEqual([]);
    expect(cbf.metrics.obstacleContact).toBe(false);
    expect(cbf.held).toBe(false);
    expect(cbf.success).toBe(true);
    expect(cbf.metrics.modifications.some((m) => m > 0.01)).toBe(true);
    expect(cbf.metrics.filterMs.length).toBeGreaterThanOrEqual(cbf.chunksExecuted);
  }, 120_000);

  it('a tracker that stops publishing holds the gate (stale tracked obstacle), it does not pass chunks', async () => {
    const r = await run('cbf', 'clean', { onCbfPath: (p) => p.tracking.stop() });
    expect(r.held).toBe(true);
    expect(r.holdReason).toMatch(/tracking.*tracked obstacle 'bystander_\d' last seen/);
    expect(r.success).toBe(false);
    // the first chunk was checked against a fresh sample; every later one is held
    expect(r.chunksExecuted).toBe(1);
    expect(r.chunksHeld).toBeGreaterThanOrEqual(1);
    // the same episode with a live tracker runs to the end
    const live = await run('cbf', 'clean');
    expect(live.held).toBe(false);
    expect(live.success).toBe(true);
  }, 120_000);

  it('the sim tracking adapter delivers samples latencyTicks late, stamped when taken, and stops when told', () => {
    world.reset(3);
    const tracker = new SceneTracker({ bystanders: [], obstacles: ['bystander_1'], source: 'sim.tracking' });
    const a = new SimTrackingAdapter(world, tracker, { bodies: ['bystander_1'], latencyTicks: 2 });
    const out = new Float64Array(3);
    const dt = world.scene.controlDt;
    a.publish();
    expect(tracker.positionOf('bystander_1', out)).toBeNaN(); // still in transit
    world.stepTick();
    a.publish();
    a.publish(); // a second call in the same tick does nothing
    expect(tracker.positionOf('bystander_1', out)).toBeNaN();
    world.stepTick();
    a.publish();
    expect(tracker.positionOf('bystander_1', out)).toBeCloseTo(world.time - 2 * dt, 9);
    const p = new Float64Array(3);
    world.bodyPos(world.bodyIdOf('bystander_1'), p);
    expect(Math.hypot(out[0]! - p[0]!, out[1]! - p[1]!, out[2]! - p[2]!)).toBeLessThan(1e-3);
    a.stop();
    const before = tracker.positionOf('bystander_1', out);
    world.stepTick();
    a.publish();
    expect(tracker.positionOf('bystander_1', out)).toBe(before);
    expect(() => new SimTrackingAdapter(world, tracker, { bodies: ['ghost'] })).toThrow(/no body named 'ghost'/);
  });
});
