/** The real LeRobot SO-101 dataset in the shared folder through the reader, the mapping and `armguard replay`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLeRobotDataset } from '../../../drivers/so101/lerobot-dataset.js';
import {
  bodyValueToRadians,
  LEROBOT_DEGREE_STEP,
  replayPositions,
  unitFromValueSteps,
} from '../../../drivers/so101/replay.js';
import { gripperPctToRadians } from '../../../src/calibration/lerobot.js';
import { parseSo101Calibration } from '../../../src/calibration/so101.js';
import { SO101_DESCRIPTION } from '../../../src/kinematics/index.js';
import { main } from '../../../src/cli/main.js';
import { repoRoot, sharedDir } from '../../support/paths.js';

const datasetDir = process.env.ARMGUARD_SO101_DATASET ?? join(sharedDir, 'data/so101-lerobot-record-test');
const info = JSON.parse(readFileSync(join(datasetDir, 'meta/info.json'), 'utf8')) as {
  total_episodes: number;
  total_frames: number;
  fps: number;
};
const calText = readFileSync(join(repoRoot, 'calibration/so101-demo.yaml'), 'utf8');
const cal = parseSo101Calibration(calText, 'so101-demo.yaml');
if (!cal.ok) throw new Error('demo calibration invalid');
/** The dataset's own unit and motor spans (derived from the recording; see the file's header). */
const fixtureCal = join(repoRoot, 'test/fixtures/so101-lerobot-record-test.calibration.yaml');

describe('LeRobot SO-101 dataset replay', () => {
  it('reads every episode with the frame counts of meta/info.json and meta/episodes', async () => {
    const ds = await readLeRobotDataset(datasetDir);
    if (!ds.ok) throw ds.error;
    expect(ds.value.episodes).toHaveLength(info.total_episodes);
    expect(ds.value.episodes.reduce((s, e) => s + e.times.length, 0)).toBe(info.total_frames);
    for (const ep of ds.value.episodes) {
      expect(ep.times.length).toBe(ep.declaredLength);
      expect(ep.times[1]! - ep.times[0]!).toBeCloseTo(1 / info.fps, 5);
      expect(ep.task).toBe('Pick the orange cube and place it in the box');
    }
    // First frame of episode 0, as stored in the parquet file.
    expect(ds.value.episodes[0]!.state[0]).toBeCloseTo(-17.85013771057129, 6);
  });

  it('maps positions to the derivable signals (values in range, grasp found in every episode)', async () => {
    const ds = await readLeRobotDataset(datasetDir);
    if (!ds.ok) throw ds.error;
    for (const ep of ds.value.episodes) {
      const r = replayPositions(ep, cal.value, { normMode: 'degrees', stallGapPct: 3 });
      expect(r.columns.get('self_collision_clearance')!.length).toBe(ep.times.length);
      expect(r.gripFrames).toBeGreaterThanOrEqual(20); // a pick-and-place: the gripper holds the cube for ≥ 0.67 s
      expect(r.stats.get('target_obj_tilt_world_deg')!.max).toBeLessThan(90);
      for (const v of r.columns.get('obj_above_table')!) expect(Math.abs(v)).toBeLessThan(0.5);
    }
  });

  it("the gripper's angle on every real frame lies in the description's range: LeRobot's 0–100 maps closed 0 rad … open upper limit", async () => {
    // Before, the 0–100 value went through the gripper's calibrated ticks and the mid-range rule of
    // the body joints: a closed gripper (≈ 2 %) read −1.09 rad, outside −0.17…1.75 rad.
    const text = readFileSync(fixtureCal, 'utf8');
    const real = parseSo101Calibration(text, fixtureCal);
    if (!real.ok) throw new Error('fixture calibration invalid');
    const gripper = SO101_DESCRIPTION.chain.joints.find((j) => j.name === 'gripper')!;
    const ds = await readLeRobotDataset(datasetDir);
    if (!ds.ok) throw ds.error;
    let lo = Infinity;
    let hi = -Infinity;
    for (const ep of ds.value.episodes) {
      let frame = 0;
      replayPositions(ep, real.value, {
        normMode: 'range_m100_100',
        stallGapPct: 3,
        onFrame: (q, i) => {
          // hand-computed: pct/100 × 100° (the calibration's gripper upper_deg)
          expect(q[5]).toBeCloseTo(((ep.state[i * 6 + 5]! / 100) * 100 * Math.PI) / 180, 12);
          lo = Math.min(lo, q[5]!);
          hi = Math.max(hi, q[5]!);
          frame++;
        },
      });
      expect(frame).toBe(ep.times.length);
    }
    expect(lo).toBeGreaterThanOrEqual(gripper.lower!);
    expect(hi).toBeLessThanOrEqual(gripper.upper!);
    // the recording's gripper closes to ≈ 2 % and opens to ≈ 39 %
    expect(lo).toBeCloseTo(((1.954 / 100) * (100 * Math.PI)) / 180, 3);
    expect(hi).toBeCloseTo(((39.151 / 100) * (100 * Math.PI)) / 180, 3);
    expect(gripperPctToRadians(0, 1.5)).toBe(0);
    expect(gripperPctToRadians(100, 1.5)).toBe(1.5);
  });

  it('range_m100_100 values go through the calibrated range: ±100 → range ends, 0 → mid-range', () => {
    const c = cal.value.lerobot.shoulder_lift;
    expect(bodyValueToRadians(0, c, 'range_m100_100')).toBeCloseTo(0, 12);
    expect(bodyValueToRadians(100, c, 'range_m100_100')).toBeCloseTo(
      (((c.range_max - c.range_min) / 2) * 2 * Math.PI) / 4095,
      12,
    );
    expect(bodyValueToRadians(45, c, 'degrees')).toBeCloseTo(Math.PI / 4, 12);
  });

  it('the recorded value steps say range_m100_100, with the spans of the fixture calibration', async () => {
    const ds = await readLeRobotDataset(datasetDir);
    if (!ds.ok) throw ds.error;
    const e = unitFromValueSteps(ds.value.episodes, ['a', 'b', 'c', 'd', 'e']);
    expect(e.kind).toBe('range_m100_100');
    if (e.kind !== 'range_m100_100') return;
    const fixture = parseSo101Calibration(readFileSync(fixtureCal, 'utf8'), fixtureCal);
    if (!fixture.ok) throw new Error('fixture calibration invalid');
    e.spans.forEach((span, j) => {
      const m = fixture.value.lerobot[fixture.value.joints[j]!.name];
      expect(Math.abs(span - (m.range_max - m.range_min)), `joint ${j}`).toBeLessThan(1);
    });
  });

  it('value steps of 360/4095 on every joint read as degrees; one joint stepping otherwise rules degrees out', () => {
    const n = 40;
    const ep = (stepOf: (j: number) => number) => ({
      times: Float64Array.from({ length: n }, (_, i) => i / 30),
      state: Float64Array.from({ length: n * 6 }, (_, k) => Math.floor(k / 6) * stepOf(k % 6) - 10),
    });
    expect(unitFromValueSteps([ep(() => LEROBOT_DEGREE_STEP)], []).kind).toBe('degrees');
    const mixed = unitFromValueSteps([ep((j) => (j === 2 ? 200 / 2205 : LEROBOT_DEGREE_STEP))], []);
    expect(mixed.kind).toBe('range_m100_100');
    if (mixed.kind === 'range_m100_100') expect(mixed.spans[2]).toBeCloseTo(2205, 6);
    expect(unitFromValueSteps([{ times: new Float64Array(n), state: new Float64Array(n * 6) }], []).kind).toBe(
      'unclear',
    ); // joints that never moved
  });

  it("read as degrees (the demo calibration's norm_mode) the dataset gets no verdicts: the error says range_m100_100, exit 1", async () => {
    const out: string[] = [];
    const err: string[] = [];
    expect(
      await main(['replay', '--templates', 'pnp-into-container', datasetDir], {
        out: (t) => out.push(t),
        err: (t) => err.push(t),
      }),
    ).toBe(1);
    const text = err.join('\n');
    expect(text).toMatch(/no verdicts/);
    expect(text).toMatch(
      /says degrees, but the recorded values step by shoulder_pan 0\.0785, .* the recording is range_m100_100/,
    );
    expect(text).toMatch(/Re-run with --norm-mode range_m100_100 and this arm's calibration/);
    expect(out.join('\n')).not.toMatch(/\bok\b|satisfied|safe/);
  });

  it("range_m100_100 with a calibration whose ranges are not this arm's: no verdicts, the mismatching spans named, exit 1", async () => {
    const err: string[] = [];
    expect(
      await main(['replay', '--norm-mode', 'range_m100_100', '--templates', 'pnp-into-container', datasetDir], {
        out: () => {},
        err: (t) => err.push(t),
      }),
    ).toBe(1);
    expect(err.join('\n')).toMatch(
      /ranges are not this arm's: range_max − range_min shoulder_pan 2610 \(recording: 2549\)/,
    );
  });

  it('armguard replay scores every episode with the clause library and says what is not applicable', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      ['replay', '--json', '--calibration', fixtureCal, '--templates', 'pnp-into-container', datasetDir],
      { out: (t) => out.push(t), err: (t) => err.push(t) },
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const report = JSON.parse(out.join('\n')) as {
      episodes: {
        frames: number;
        score: { reducedSet: string[]; clauses: { id: string; applicable: boolean; rho: number }[] };
      }[];
    };
    expect(report.episodes.map((e) => e.frames).reduce((a, b) => a + b, 0)).toBe(info.total_frames);
    for (const e of report.episodes) {
      expect(e.score.reducedSet).toEqual(
        expect.arrayContaining(['joint_torque', 'arm_furniture_force', 'max_contact_force']),
      );
      const self = e.score.clauses.find((c) => c.id === 'self_collision_free')!;
      expect(self.applicable).toBe(true);
      expect(Number.isFinite(self.rho)).toBe(true);
      expect(e.score.clauses.find((c) => c.id === 'held_object_tilt_world')!.applicable).toBe(true);
    }
  });
});

describe('stall-estimated grasp', () => {
  const still = (pct: number, act: number, n: number) => Array.from({ length: n }, () => [pct, act] as const);
  function episode(grip: (readonly [number, number])[]) {
    const n = grip.length;
    const state = new Float64Array(n * 6),
      action = new Float64Array(n * 6);
    grip.forEach(([s, a], i) => {
      state[i * 6 + 5] = s;
      action[i * 6 + 5] = a;
    });
    return {
      index: 0,
      task: undefined,
      times: Float64Array.from(grip, (_, i) => i / 30),
      state,
      action,
      declaredLength: n,
    };
  }
  it('a follower lagging a closing leader is not a grasp; a stalled gap is, released when the gap closes', () => {
    // Closing freely: state trails action by 5 but keeps moving 2 per frame.
    const closing = Array.from({ length: 10 }, (_, i) => [40 - 2 * i, 35 - 2 * i] as const);
    const r1 = replayPositions(episode(closing), cal.value, { normMode: 'degrees', stallGapPct: 3 });
    expect(r1.gripFrames).toBe(0);
    // Stalled on the cube at 10 % while the leader asks for 1 %: grasp after 3 still frames; opening releases it.
    const r2 = replayPositions(episode([...still(12, 11, 2), ...still(10, 1, 6), ...still(10, 9, 3)]), cal.value, {
      normMode: 'degrees',
      stallGapPct: 3,
    });
    expect(Array.from(r2.columns.get('gripper_contact')!)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0]);
  });
});
