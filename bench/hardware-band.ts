/**
 * The warning band on the real arms' motion model (issue 15; src/rigs/warning-band.ts): time per
 * chunk of `WarningBand.filter` with KinematicChunkMotion — SO-101 (fixture calibration from the real
 * LeRobot recording, gravity model on) and FR3 with the Franka Hand — for a chunk the band passes
 * (one scan) and one it slows or holds (several scans), H = 50 rows. Prints p50 / p99 / max over the
 * runs. Run: npx tsx bench/hardware-band.ts [runs]
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import { parseSo101Calibration } from '../src/calibration/so101.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { planSafeMonitors } from '../src/runtime/safe-monitors.js';
import { declaredSignals } from '../src/schema/platform.js';
import { frankaBand, so101Band, type PlatformBand } from '../src/rigs/warning-band.js';
import { so101ModelFor } from '../drivers/so101/mapping.js';

const runs = Number(process.argv[2] ?? 2000);
const root = resolve(import.meta.dirname, '..');
const calPath = join(root, 'test/fixtures/so101-lerobot-record-test.calibration.yaml');
const cal = parseSo101Calibration(readFileSync(calPath, 'utf8'), calPath);
if (!cal.ok) throw new Error('calibration does not parse');
const spec = loadScoringSpec(defaultSpecPaths());
if (!spec.ok) throw new Error(spec.problems.join('\n'));
const TASK = 'sim-pick-cup-into-box';

function measure(name: string, band: PlatformBand, q0: number[], joint: number, step: number, columns: number): void {
  const H = 50;
  const chunk = (d: number) => {
    const t = new Float64Array(H * columns);
    for (let k = 0; k < H; k++)
      for (let j = 0; j < columns; j++) t[k * columns + j] = (q0[j] ?? 0) + (j === joint ? d * (k + 1) : 0);
    return t;
  };
  for (const [label, targets, gripping] of [
    ['passed (empty gripper)', chunk(step), false],
    ['held (lowering a held object)', chunk(step), true],
  ] as const) {
    const times: number[] = [];
    let status = '';
    for (let i = 0; i < runs + 200; i++) {
      const t0 = performance.now();
      const o = band.stage.band.filter(targets, H, columns, 1 / 30, q0, { gripping, heldHeight: 0 });
      const ms = performance.now() - t0;
      status = o.status;
      if (i >= 200) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(3);
    console.log(
      `${name.padEnd(7)} ${label.padEnd(32)} → ${status.padEnd(9)} p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${times.at(-1)!.toFixed(3)} ms (${runs} chunks, H ${H})`,
    );
  }
}

const so101Plan = planSafeMonitors(spec.spec, 'so101', TASK, () => new Set(cal.value.declaredSignals));
measure(
  'SO-101',
  so101Band({ calibration: cal.value, model: so101ModelFor(cal.value), instances: so101Plan.instances }),
  [0, -1, 0.8, 0.5, 0, 0.3],
  1,
  0.01,
  6,
);
const frPlan = planSafeMonitors(spec.spec, 'fr3', 'libero-spatial-pick-bowl', (p) => declaredSignals(p, []));
measure(
  'FR3',
  frankaBand({ platform: 'fr3', endEffector: 'franka_hand', tableHeight: 0, instances: frPlan.instances }),
  [0, -0.785, 0, -2.356, 0, 1.571, 0.785],
  1,
  0.01,
  7,
);
