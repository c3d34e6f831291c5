/**
 * The SO-101 follower's run-on behind its position targets (issue 15: the warning band's `runOn`
 * for `armguard run so101`), measured on the real LeRobot SO-101 dataset: in teleoperated
 * recordings `action` is the goal position written to the follower each 30 Hz frame and
 * `observation.state` where the follower is. Per episode and body joint, the lag L minimising
 * Σ (Δstate(t) − Δaction(t − L))² over the frames where the arm moves (first differences, so a
 * constant leader–follower offset or gravity sag does not count) is searched on a 1 ms grid from 0
 * to 300 ms with linear interpolation between frames. Prints each episode's lag (median over the
 * joints that moved) and the largest.
 *
 * Usage: npx tsx bench/so101-run-on.ts [dataset dir]
 */
import { join, resolve } from 'node:path';
import { readLeRobotDataset } from '../drivers/so101/lerobot-dataset.js';

const root = resolve(import.meta.dirname, '..');
const datasetDir =
  process.argv[2] ?? join(process.env.ARMGUARD_SHARED ?? join(root, '../shared'), 'data/so101-lerobot-record-test');
const ds = await readLeRobotDataset(datasetDir);
if (!ds.ok) throw ds.error;
const BODY_JOINTS = 5;
/** A frame counts as moving when the target moves more than this per frame (dataset units: degrees or ±100). */
const MOVING = 0.2;

function lagOf(times: Float64Array, state: Float64Array, action: Float64Array, j: number): number | undefined {
  const n = times.length;
  const fps = (n - 1) / (times[n - 1]! - times[0]!);
  const at = (series: Float64Array, t: number): number => {
    // linear interpolation of joint j at fractional frame t
    const i = Math.floor(t);
    if (i < 0 || i + 1 >= n) return NaN;
    const f = t - i;
    return series[i * 6 + j]! * (1 - f) + series[(i + 1) * 6 + j]! * f;
  };
  let moving = 0;
  for (let k = 1; k < n; k++) if (Math.abs(action[k * 6 + j]! - action[(k - 1) * 6 + j]!) > MOVING) moving++;
  if (moving < 30) return undefined;
  let best = Infinity;
  let bestLag = NaN;
  for (let ms = 0; ms <= 300; ms++) {
    const shift = (ms / 1000) * fps;
    let sse = 0;
    let count = 0;
    for (let k = 12; k < n; k++) {
      const da = at(action, k - shift) - at(action, k - 1 - shift);
      if (!(Math.abs(da) > MOVING)) continue;
      const ds = state[k * 6 + j]! - state[(k - 1) * 6 + j]!;
      sse += (ds - da) ** 2;
      count++;
    }
    if (count > 0 && sse / count < best) {
      best = sse / count;
      bestLag = ms;
    }
  }
  return bestLag;
}

let worst = 0;
for (const ep of ds.value.episodes) {
  if (!ep.action) continue;
  const lags: number[] = [];
  for (let j = 0; j < BODY_JOINTS; j++) {
    const l = lagOf(ep.times, ep.state, ep.action, j);
    if (l !== undefined) lags.push(l);
  }
  lags.sort((a, b) => a - b);
  const median = lags[Math.floor(lags.length / 2)] ?? NaN;
  worst = Math.max(worst, median);
  console.log(
    `episode ${ep.index}: ${ep.times.length} frames; lag per moving joint ${lags.join(', ')} ms; median ${median} ms`,
  );
}
console.log(`largest episode median lag: ${worst} ms`);
