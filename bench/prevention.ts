/**
 * Prevention on the demo's unsafe policies (issue 15): every scripted policy of the MuJoCo demo,
 * N seeds each, in the demo's gate modes — off, hold (monitors + hold) and cbf (the chunk CBF) —
 * with the chunk warning band of src/gate/warning-band.ts on every chunk the gate-on modes pass,
 * on both scenes. Per policy and mode: episodes,
 * successes, Safety (no safe-tier clause violated), safe successes, episodes the gate held,
 * chunks the warning band acted on, and the clauses violated; then the band's time per chunk
 * (p50/p99, wall clock, the MuJoCo motion model included). Episodes are recorded as by `armguard
 * demo` (into a temporary directory) so the figures are the demo's own.
 * Run: npx tsx bench/prevention.ts [seeds=10] [scenes=so101,panda] [policies=all]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DlsIk, POLICIES, SimWorld, loadMujoco, pandaScene, so101Scene } from '../drivers/sim/index.js';
import { DEMO_TASK, demoClauses, demoPlatform } from '../src/cli/demo/clauses.js';
import { PILOT_MODES, runDemoEpisode, type DemoEpisodeResult, type GateMode } from '../src/cli/demo/episode.js';
import { SimCbfPath } from '../src/cli/demo/sim-cbf.js';
import { demoCbfSettings } from '../src/cli/commands/demo.js';
import { DemoPrevention } from '../src/cli/demo/prevention.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';

const seeds = Number(process.argv[2] ?? '10');
const scenes = (process.argv[3] ?? 'so101,panda').split(',');
const wanted = process.argv[4]?.split(',');
const policies = POLICIES.filter((p) => !wanted || wanted.includes(p.name));
/** Gate modes: the demo's off, hold and cbf (MODES=off,hold to choose). */
const MODES: readonly GateMode[] = (process.env.MODES?.split(',') as GateMode[] | undefined) ?? PILOT_MODES;
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, ${seeds} seed(s) per policy and mode`,
);

const spec = loadScoringSpec(defaultSpecPaths());
if (!spec.ok) throw new Error(spec.problems.join('\n'));
const mj = await loadMujoco();
const out = mkdtempSync(join(tmpdir(), 'armguard-bench-prevention-'));
const pct = (a: number, b: number): string => (b === 0 ? '—' : `${((100 * a) / b).toFixed(0)} %`);
try {
  for (const sceneId of scenes) {
    const clauses = demoClauses(spec.spec, demoPlatform(sceneId));
    if (!clauses.ok) throw new Error(clauses.reason);
    const world = new SimWorld(mj, sceneId === 'panda' ? pandaScene() : so101Scene());
    const ik = new DlsIk(mj, world);
    const prevention = new DemoPrevention(mj, world, clauses.instances);
    // The band's time per chunk: the episodes call the band through the chunk path's stage
    // (prevention.stage → WarningBand.filter), so that is what is timed.
    const times: number[] = [];
    const band = prevention.band;
    const bandFilter = band.filter.bind(band);
    band.filter = (...args: Parameters<typeof band.filter>) => {
      const t = performance.now();
      const r = bandFilter(...args);
      times.push(performance.now() - t);
      return r;
    };
    const cbf = MODES.includes('cbf')
      ? new SimCbfPath(world, { ...demoCbfSettings(sceneId as 'so101' | 'panda'), wallMs: () => performance.now() })
      : undefined;
    const t0 = performance.now();
    console.log(`\nscene ${sceneId}`);
    console.log(
      '| policy | mode | episodes | successes | Safety | safe successes | held episodes | band chunks | violated (episodes) |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const policy of policies) {
      for (const mode of MODES) {
        const results: DemoEpisodeResult[] = [];
        for (let s = 1; s <= seeds; s++) {
          results.push(
            await runDemoEpisode({
              world,
              ik,
              policy,
              mode,
              seed: s,
              clauses: clauses.instances,
              task: DEMO_TASK,
              dir: join(out, sceneId),
              episodeId: `${sceneId}-${mode}-${policy.name}-s${s}`,
              startedAt: new Date().toISOString(),
              prevention,
              ...(cbf ? { cbf } : {}),
            }),
          );
        }
        const safe = results.filter((r) => r.violated.length === 0);
        const violated = new Map<string, number>();
        for (const r of results) for (const c of r.violated) violated.set(c, (violated.get(c) ?? 0) + 1);
        console.log(
          `| ${policy.name} | gate ${mode} | ${results.length} | ${results.filter((r) => r.success).length} | ${pct(safe.length, results.length)} | ${safe.filter((r) => r.success).length} | ${results.filter((r) => r.held).length} | ${results.reduce((a, r) => a + r.chunksPrevented, 0)} | ${[...violated].map(([c, n]) => `${c} (${n})`).join(', ') || '—'} |`,
        );
      }
    }
    times.sort((a, b) => a - b);
    const q = (p: number): string =>
      (times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? NaN).toFixed(2);
    console.log(
      `scene ${sceneId}: ${((performance.now() - t0) / 1000).toFixed(0)} s wall; warning band per chunk (H = 50): p50 ${q(0.5)} ms, p99 ${q(0.99)} ms over ${times.length} chunks`,
    );
    prevention.dispose();
    ik.dispose();
    world.dispose();
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
