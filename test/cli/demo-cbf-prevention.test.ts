/**
 * Issue 15 in the real MuJoCo testbed: under the demo's cbf settings (demoCbfSettings) the held
 * object's tilt and the self-collision fold are prevented — bent, not held — on both scenes, and
 * the new constraints leave the clean pick-and-place exactly as it was without them (its release
 * is not bent: the tilt constraint follows the gripper command, which opens there).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DlsIk, SimWorld, loadMujoco, policyByName, type Mujoco } from '../../drivers/sim/index.js';
import { DEMO_SCENES, demoCbfSettings, type SceneId } from '../../src/cli/commands/demo.js';
import { DEMO_TASK, demoClauses, demoPlatform } from '../../src/cli/demo/clauses.js';
import { runDemoEpisode } from '../../src/cli/demo/episode.js';
import { DemoPrevention } from '../../src/cli/demo/prevention.js';
import { SimCbfPath } from '../../src/cli/demo/sim-cbf.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';

const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();

describe.each(['so101', 'panda'] as const)('demo cbf prevention (%s scene)', (sceneId: SceneId) => {
  const dir = mkdtempSync(join(tmpdir(), `armguard-demo-prevent-${sceneId}-`));
  const clauses = (() => {
    const c = demoClauses(spec, demoPlatform(sceneId));
    if (!c.ok) throw new Error(c.reason);
    return c.instances;
  })();
  let mj: Mujoco;
  let world: SimWorld;
  let ik: DlsIk;
  let band: DemoPrevention;
  let cbf: SimCbfPath;
  let before: SimCbfPath;
  beforeAll(async () => {
    mj = await loadMujoco();
    world = new SimWorld(mj, DEMO_SCENES[sceneId]());
    ik = new DlsIk(mj, world);
    band = new DemoPrevention(mj, world, clauses);
    cbf = new SimCbfPath(world, { ...demoCbfSettings(sceneId), wallMs: () => performance.now() });
    // the same path without the self pair and the tilt faces (the planning margin, which moves
    // any bystander bend by δ, is the same)
    before = new SimCbfPath(world, {
      ...demoCbfSettings(sceneId),
      selfClearance: null,
      heldTilt: null,
      wallMs: () => performance.now(),
    });
  }, 60_000);
  afterAll(() => {
    band?.dispose();
    ik?.dispose();
    world?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  let n = 0;
  const run = (policy: string, path: SimCbfPath, seed = 1) =>
    runDemoEpisode({
      world,
      ik,
      policy: policyByName(policy)!,
      mode: 'cbf',
      seed,
      clauses,
      task: DEMO_TASK,
      dir,
      episodeId: `${policy}-${n++}`,
      startedAt: new Date(0).toISOString(),
      cbf: path,
      prevention: band,
    });

  it('tilt_held: the tilt is bent out of the chunk, no clause violated, no hold, the task done', async () => {
    const r = await run('tilt_held', cbf);
    expect(r.violated).toEqual([]);
    expect(r.held, r.holdReason).toBe(false);
    expect(r.chunksFiltered).toBeGreaterThanOrEqual(1);
    expect(r.success).toBe(true);
  }, 120_000);

  it('tilt_held, seed 3: the carried target stays level and clear of the box wall (on the Panda it slipped out, unsafe)', async () => {
    const r = await run('tilt_held', cbf, 3);
    expect(r.violated).toEqual([]);
    expect(r.held, r.holdReason).toBe(false);
    expect(r.success).toBe(true);
  }, 120_000);

  it('shove_bystander: bent around the bystander, no clause violated, no hold, the task done', async () => {
    const r = await run('shove_bystander', cbf);
    expect(r.violated).toEqual([]);
    expect(r.held, r.holdReason).toBe(false);
    expect(r.chunksFiltered).toBeGreaterThanOrEqual(1);
    expect(r.success).toBe(true);
  }, 120_000);

  it('self_collision: the fold is bent away (and, on the SO-101, off the table and under the torque limit)', async () => {
    const r = await run('self_collision', cbf);
    expect(r.violated).toEqual([]);
    expect(r.held, r.holdReason).toBe(false);
    expect(r.chunksFiltered).toBeGreaterThanOrEqual(1);
    expect(r.success).toBe(true);
  }, 120_000);

  it('clean: the same chunks with and without the self pair and the tilt faces (the release is not bent)', async () => {
    const now = await run('clean', cbf);
    const old = await run('clean', before);
    expect(now.violated).toEqual([]);
    expect(now.success).toBe(true);
    expect(now.held).toBe(false);
    expect(now.metrics.modifications.length).toBe(old.metrics.modifications.length);
    // Equal up to the interior-point solver's tolerance: the idle faces and the self pair are extra
    // constant rows, which move its result by ~1e-6…1e-4 rad; a bend of the release would be tenths
    // of a radian (the contact-keyed attempt bent it by 29°).
    now.metrics.modifications.forEach((m, k) => expect(Math.abs(m - old.metrics.modifications[k]!)).toBeLessThan(1e-3));
  }, 180_000);
});
