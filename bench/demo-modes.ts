/**
 * Issue 15's figures: the demo's scripted policies (clean + one unsafe per clause family) in every
 * gate mode — off (baseline), hold (monitors + hold), cbf (chunk CBF + hold) — on the same seeds,
 * per scene. Prints, per mode: Safety (episodes with no safe-tier clause violated), successes, SBU
 * (unsafe successes / episodes), obstacle contacts, holds, mean ‖U − U_nom‖, smoothness, and the
 * filter time p50/p99 (wall, and CPU of this process — the machine is shared, so wall time under
 * load overstates the filter's cost); then per policy; then the demo's --json document.
 * Run: npx tsx bench/demo-modes.ts [scene=so101|panda] [seeds=10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DlsIk, POLICIES, SimWorld, loadMujoco } from '../drivers/sim/index.js';
import { DEMO_SCENES, demoCbfSettings, type SceneId } from '../src/cli/commands/demo.js';
import { DEMO_TASK, demoClauses, demoPlatform } from '../src/cli/demo/clauses.js';
import { PILOT_MODES, runDemoEpisode, type DemoEpisodeResult } from '../src/cli/demo/episode.js';
import { demoJson, modeStats } from '../src/cli/demo/metrics.js';
import { SimCbfPath } from '../src/cli/demo/sim-cbf.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { quantile } from '../src/report/metrics/quantile.js';

const sceneId = (process.argv[2] ?? 'so101') as SceneId;
const seeds = Number(process.argv[3] ?? '10');
if (!(sceneId in DEMO_SCENES)) throw new Error(`scene must be so101 or panda, got ${sceneId}`);
const spec = loadScoringSpec(defaultSpecPaths());
if (!spec.ok) throw new Error(spec.problems.join('\n'));
const clauses = demoClauses(spec.spec, demoPlatform(sceneId));
if (!clauses.ok) throw new Error(clauses.reason);

console.log(
  `node ${process.version}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; scene ${sceneId}, seeds 1…${seeds}, ${POLICIES.length} policies, modes ${PILOT_MODES.join(', ')}`,
);
const mj = await loadMujoco();
const world = new SimWorld(mj, DEMO_SCENES[sceneId]());
const ik = new DlsIk(mj, world);
const cpuMs = (): number => process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
const cbf = new SimCbfPath(world, { ...demoCbfSettings(sceneId), wallMs: () => performance.now(), cpuMs });
const dir = mkdtempSync(join(tmpdir(), 'armguard-bench-modes-'));
const results: DemoEpisodeResult[] = [];
const t0 = performance.now();
for (const mode of PILOT_MODES) {
  for (const policy of POLICIES) {
    for (let seed = 1; seed <= seeds; seed++) {
      results.push(
        await runDemoEpisode({
          world,
          ik,
          policy,
          mode,
          seed,
          clauses: clauses.instances,
          task: DEMO_TASK,
          dir,
          episodeId: `${mode}-${policy.name}-${seed}`,
          startedAt: new Date(0).toISOString(),
          cbf,
        }),
      );
    }
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(
  `${results.length} episodes in ${((performance.now() - t0) / 1000).toFixed(0)} s wall; load average now ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);

const pct = (a: number, n: number): string => (n === 0 ? '—' : `${a}/${n} (${Math.round((100 * a) / n)} %)`);
const num = (x: number | null, d: number): string => (x === null ? '—' : x.toFixed(d));
console.log(
  '\n| mode | Safety | successes | SBU (unsafe successes) | obstacle contacts | held episodes | mean ‖U−U_nom‖ (rad) | jerk (rad²/s⁶) | reversals/s | filter p50 / p99 wall (ms) | filter p50 / p99 CPU (ms) |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const mode of PILOT_MODES) {
  const rs = results.filter((r) => r.mode === mode);
  const s = modeStats(rs.map((r) => r.metrics));
  const cpu = rs.flatMap((r) => r.filterCpuMs);
  const cpuTxt = cpu.length === 0 ? '—' : `${quantile(cpu, 0.5).toFixed(2)} / ${quantile(cpu, 0.99).toFixed(2)}`;
  console.log(
    `| ${mode} | ${pct(s.episodes - s.unsafe, s.episodes)} | ${pct(s.successes, s.episodes)} | ${pct(s.unsafe_successes, s.episodes)} | ${s.obstacle_contacts} | ${s.holds} | ${num(s.mean_modification, 3)} | ${num(s.jerk, 0)} | ${num(s.reversals_per_s, 2)} | ${s.filter_ms_p50 === null ? '—' : `${num(s.filter_ms_p50, 2)} / ${num(s.filter_ms_p99, 2)}`} | ${cpuTxt} |`,
  );
}
console.log('\nper policy — Safety · successes · holds (off | hold | cbf):');
console.log('\n| policy | off | hold | cbf |');
console.log('|---|---|---|---|');
for (const p of POLICIES) {
  const cells = PILOT_MODES.map((m) => {
    const s = modeStats(results.filter((r) => r.mode === m && r.policy === p.name).map((r) => r.metrics));
    return `safe ${s.episodes - s.unsafe}/${s.episodes} · succ ${s.successes} · held ${s.holds}`;
  });
  console.log(`| ${p.name} | ${cells.join(' | ')} |`);
}
const holds = results.filter((r) => r.mode === 'cbf' && r.held);
console.log(`\ncbf holds (${holds.length}):`);
for (const r of holds) console.log(`  ${r.episodeId}: t=${r.holdT.toFixed(2)} s ${r.holdReason}`);
const violations = results.filter((r) => r.mode === 'cbf' && r.violated.length > 0);
console.log(
  `cbf episodes with a violated clause (${violations.length}): ${violations.map((r) => `${r.episodeId} [${r.violated.join(',')}]`).join('; ')}`,
);
console.log(
  `\n--json: ${JSON.stringify(
    demoJson(
      results.map((r) => r.metrics),
      PILOT_MODES,
    ),
  )}`,
);
ik.dispose();
world.dispose();
