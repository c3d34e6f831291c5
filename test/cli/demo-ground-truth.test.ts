/**
 * Issue 9 ground-truth check: offline scoring of the simulator's exact signals (the frames recorded
 * in each episode file, scored post hoc by the EpisodeScorer over the whole trace) agrees with the
 * online monitor's verdicts recorded live in the same file (per-step margins of the MonitorBank):
 * the same violated clauses, and the same first violating step within one control step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMujoco } from '../../drivers/sim/mujoco.js';
import { DlsIk, POLICIES, SimWorld, so101Scene } from '../../drivers/sim/index.js';
import { DEMO_TASK, demoClauses, demoPlatform } from '../../src/cli/demo/clauses.js';
import { runDemoEpisode, type DemoEpisodeResult } from '../../src/cli/demo/episode.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { EpisodeScorer } from '../../src/safety/index.js';
import { readEpisode, readEpisodeTrace } from '../../src/episode/index.js';

const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();

describe('demo ground truth: offline scoring of the simulator signals == online monitor verdicts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-ground-truth-'));
  const results: DemoEpisodeResult[] = [];
  let world: SimWorld;
  let ik: DlsIk;

  beforeAll(async () => {
    const mj = await loadMujoco();
    world = new SimWorld(mj, so101Scene());
    ik = new DlsIk(mj, world);
    const clauses = demoClauses(spec, demoPlatform('so101'));
    if (!clauses.ok) throw new Error(clauses.reason);
    for (const policy of POLICIES) {
      results.push(
        await runDemoEpisode({
          world,
          ik,
          policy,
          mode: 'off',
          seed: 7,
          clauses: clauses.instances,
          task: DEMO_TASK,
          dir,
          episodeId: `gt-${policy.name}`,
          startedAt: new Date(0).toISOString(),
        }),
      );
    }
  }, 300_000);
  afterAll(() => {
    ik?.dispose();
    world?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every policy: same violated clauses, same first violating step (± 1 step)', async () => {
    const scorer = new EpisodeScorer(spec);
    const dt = so101Scene().controlDt;
    for (const r of results) {
      // Online: the first recorded per-step margin < 0, per clause.
      let clauses: string[] = [];
      const onlineFirst = new Map<string, number>();
      await readEpisode(
        r.path,
        (rec) => {
          if (rec.kind !== 'robustness') return;
          rec.value.rho.forEach((m, i) => {
            const id = clauses[i]!;
            if (m !== null && m < 0 && !onlineFirst.has(id)) onlineFirst.set(id, rec.t);
          });
        },
        { kinds: ['robustness'], onStart: (s) => void (clauses = s.clauses) },
      );
      // Offline: the recorded frames scored over the whole trace.
      const trace = await readEpisodeTrace(r.path);
      const scored = scorer.score(trace);
      if (!scored.ok) throw new Error(scored.error.map((e) => e.message).join('\n'));
      const offlineFirst = new Map<string, number>();
      for (const c of scored.value.clauses) {
        if (c.tier === 'safe' && c.applicable && c.violatedByTrace && c.firstViolationTime !== null)
          offlineFirst.set(c.clauseId, c.firstViolationTime);
      }
      expect([...offlineFirst.keys()].sort(), `${r.policy}: violated clauses`).toEqual([...onlineFirst.keys()].sort());
      for (const [id, t] of offlineFirst)
        expect(Math.abs(t - onlineFirst.get(id)!), `${r.policy}/${id}: first violation`).toBeLessThanOrEqual(dt + 1e-9);
    }
    // The check has teeth: the unsafe policies do violate.
    expect(results.filter((r) => r.violated.length > 0).length).toBeGreaterThanOrEqual(5);
    expect(results.find((r) => r.policy === 'clean')!.violated).toEqual([]);
  });
});
