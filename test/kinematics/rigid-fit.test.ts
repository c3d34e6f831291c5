/**
 * The mocap frame fit: a hand-made transform (tracking frame 0.62 m out, 0.18 m left, 4 cm up,
 * rolled 0.05, pitched −0.08, turned 1.9 rad) applied to markers spread on a table, with ±1 mm
 * measurement noise (seeded), must come back within the noise; degenerate (collinear, too few)
 * point sets and a mis-touched point are refused; the CSV parser is property-tested.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fitRigidTransform, symmetricEigen } from '../../src/kinematics/rigid-fit.js';
import { setFromXyzRpy, transformPoint } from '../../src/kinematics/transform.js';
import { parsePairsCsv, PAIR_COLUMNS } from '../../src/calibration/mocap-pairs.js';
import { mulberry32 } from '../../src/util/rng.js';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../support/cli-io.js';

const TRUE_POSE = [0.62, 0.18, 0.04, 0.05, -0.08, 1.9] as const;
const base = new Float64Array(12);
setFromXyzRpy(base, 0, ...TRUE_POSE);
const toRobot = (p: readonly number[]): [number, number, number] => {
  const out = new Float64Array(3);
  transformPoint(out, 0, base, 0, p[0]!, p[1]!, p[2]!);
  return [out[0]!, out[1]!, out[2]!];
};
/** Eight markers on a table in the tracking frame (z ≈ table height), not on a line. */
const MARKERS: [number, number, number][] = [
  [0.1, 0.05, 0.0],
  [0.45, 0.1, 0.002],
  [0.3, -0.35, 0.001],
  [-0.2, -0.25, 0.0],
  [-0.3, 0.3, 0.003],
  [0.05, 0.42, 0.0],
  [0.25, 0.25, 0.12],
  [-0.1, -0.05, 0.08],
];
function noisy(seed: number, amplitude = 0.001) {
  const rnd = mulberry32(seed);
  const jitter = (p: readonly number[]): [number, number, number] => [
    p[0]! + amplitude * (2 * rnd() - 1),
    p[1]! + amplitude * (2 * rnd() - 1),
    p[2]! + amplitude * (2 * rnd() - 1),
  ];
  return { mocap: MARKERS.map(jitter), robot: MARKERS.map((m) => jitter(toRobot(m))) };
}

describe('symmetricEigen (Jacobi)', () => {
  it('A·v = λ·v for a hand-made 3×3 (eigenvalues 1, 2, 4 of diag rotated)', () => {
    // A = [[2,1,0],[1,2,0],[0,0,4]]: eigenvalues 1, 3, 4 by hand
    const { values } = symmetricEigen([2, 1, 0, 1, 2, 0, 0, 0, 4], 3);
    expect([...values].sort((a, b) => a - b).map((v) => Number(v.toFixed(12)))).toEqual([1, 3, 4]);
  });
});

describe('fitRigidTransform (Horn) against a hand-made transform', () => {
  it('recovers the pose from exact points to 1e-9', () => {
    const r = fitRigidTransform(MARKERS, MARKERS.map(toRobot));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    r.fit.xyzRpy.forEach((v, k) => expect(v).toBeCloseTo(TRUE_POSE[k]!, 9));
    expect(r.fit.max).toBeLessThan(1e-9);
  });

  it('with ±1 mm noise on both sides: within 2 mm and 0.01 rad, residuals about the noise', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { mocap, robot } = noisy(seed);
      const r = fitRigidTransform(mocap, robot);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      for (let k = 0; k < 3; k++) expect(Math.abs(r.fit.xyzRpy[k]! - TRUE_POSE[k]!)).toBeLessThan(0.002);
      for (let k = 3; k < 6; k++) expect(Math.abs(r.fit.xyzRpy[k]! - TRUE_POSE[k]!)).toBeLessThan(0.01);
      expect(r.fit.max).toBeLessThan(0.0035); // √3 · 2 mm at most
      expect(r.fit.rms).toBeGreaterThan(0.0002);
      // a proper rotation (det +1), never a reflection
      const R = r.fit.rotation;
      const det =
        R[0]! * (R[4]! * R[8]! - R[5]! * R[7]!) -
        R[1]! * (R[3]! * R[8]! - R[5]! * R[6]!) +
        R[2]! * (R[3]! * R[7]! - R[4]! * R[6]!);
      expect(det).toBeCloseTo(1, 9);
    }
  });

  it('refuses too few points and points on one line', () => {
    const two = fitRigidTransform(MARKERS.slice(0, 2), MARKERS.slice(0, 2).map(toRobot));
    expect(two).toEqual({
      ok: false,
      reason: '2 point pair(s): at least 3, not on one line, are needed to fix a rotation',
    });
    const line = [0, 0.1, 0.2, 0.3, 0.4].map((s): [number, number, number] => [
      s,
      2 * s + 0.0004 * Math.sin(40 * s),
      0,
    ]);
    const r = fitRigidTransform(line, line.map(toRobot));
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.reason).toMatch(/^the first point set is \(nearly\) on one line: spread across it 0\.\d mm < 20 mm/);
  });
});

describe('armguard mocap-fit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-mocap-fit-'));
  const csv = (rows: { robot: number[]; mocap: number[] }[]) =>
    [
      '# touched with the flange centre',
      'label,robot_x,robot_y,robot_z,mocap_x,mocap_y,mocap_z',
      ...rows.map((r, i) => [`m${i + 1}`, ...r.robot, ...r.mocap].join(',')),
    ].join('\n') + '\n';
  const pairsOf = (seed: number) => {
    const { mocap, robot } = noisy(seed);
    return mocap.map((m, i) => ({ mocap: m, robot: robot[i]! }));
  };

  it('prints every residual and the tracking_frame_in_base line, which reproduces the hand-made pose', async () => {
    const file = join(dir, 'good.csv');
    writeFileSync(file, csv(pairsOf(7)));
    const c = captureIo();
    expect(await main(['mocap-fit', '--pairs', file], c.io)).toBe(0);
    const out = c.out.join('\n');
    for (let i = 1; i <= 8; i++) expect(out).toMatch(new RegExp(`^  m${i} +\\d+ +\\d+\\.\\d$`, 'm'));
    expect(out).toMatch(/^residuals: RMS \d\.\d mm, max \d\.\d mm \(limit 10\.0 mm\)$/m);
    const line = /^tracking_frame_in_base: \[(.*)\]$/m.exec(out);
    expect(line).not.toBeNull();
    const values = line![1]!.split(', ').map(Number);
    values.forEach((v, k) => expect(Math.abs(v - TRUE_POSE[k]!)).toBeLessThan(k < 3 ? 0.002 : 0.01));
  });

  it('refuses a mis-touched point (3 cm off), naming it and its line, and prints no parameter', async () => {
    const rows = pairsOf(8);
    rows[4]!.robot[1] += 0.03;
    const file = join(dir, 'outlier.csv');
    writeFileSync(file, csv(rows));
    const c = captureIo();
    expect(await main(['mocap-fit', '--pairs', file], c.io)).toBe(1);
    expect(c.err.join('\n')).toMatch(/refused: residual \d+\.\d mm exceeds 10\.0 mm at .*m5 \(line 7\)/);
    expect(c.out.join('\n')).not.toContain('tracking_frame_in_base');
  });

  it('refuses collinear points and a bad cell, naming file, line and column', async () => {
    const line = join(dir, 'line.csv');
    writeFileSync(line, csv([0, 0.1, 0.2, 0.3].map((s) => ({ mocap: [s, s, 0], robot: toRobot([s, s, 0]) }))));
    const c = captureIo();
    expect(await main(['mocap-fit', '--pairs', line], c.io)).toBe(1);
    expect(c.err.join('\n')).toMatch(/line\.csv: refused: the first point set is \(nearly\) on one line/);
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'label,robot_x,robot_y,robot_z,mocap_x,mocap_y,mocap_z\nm1,0.1,0.2,x,0,0,0\n');
    const d = captureIo();
    expect(await main(['mocap-fit', '--pairs', bad], d.io)).toBe(1);
    expect(d.err).toEqual([`armguard mocap-fit: ${bad}:2: column robot_z: expected a finite number (m), got 'x'`]);
    expect(await main(['mocap-fit'], captureIo().io)).toBe(2);
  });
});

describe('parsePairsCsv (property)', () => {
  const finite = fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }).map((v) => (v === 0 ? 0 : v)); // -0 prints as 0
  const row = fc.record({
    label: fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/),
    values: fc.array(finite, { minLength: 6, maxLength: 6 }),
  });

  it('reads back every table it is given, in any column order', () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 30 }),
        fc.shuffledSubarray([...PAIR_COLUMNS, 'label'], { minLength: 7, maxLength: 7 }),
        (rows, order) => {
          const text = [
            order.join(','),
            ...rows.map((r) =>
              order
                .map((c) =>
                  c === 'label' ? r.label : String(r.values[PAIR_COLUMNS.indexOf(c as (typeof PAIR_COLUMNS)[number])]),
                )
                .join(','),
            ),
          ].join('\n');
          const p = parsePairsCsv(text, 'p.csv');
          expect(p.ok).toBe(true);
          if (!p.ok) return;
          expect(p.pairs.map((x) => [x.label, ...x.robot, ...x.mocap])).toEqual(
            rows.map((r) => [r.label, ...r.values]),
          );
        },
      ),
    );
  });

  it('never throws; a damaged cell is named with its line and column', () => {
    fc.assert(fc.property(fc.string(), (s) => void parsePairsCsv(s, 'p.csv')));
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 10 }),
        fc.nat(),
        fc.nat(5),
        fc.constantFrom('', 'NaN', 'Infinity', '1e999', 'abc', '0x'),
        (rows, at, col, junk) => {
          const i = at % rows.length;
          const lines = [
            'label,' + PAIR_COLUMNS.join(','),
            ...rows.map((r, k) =>
              [r.label, ...r.values.map((v, j) => (k === i && j === col ? junk : String(v)))].join(','),
            ),
          ];
          const p = parsePairsCsv(lines.join('\n'), 'p.csv');
          expect(p.ok).toBe(false);
          if (!p.ok)
            expect(p.errors).toContain(
              `p.csv:${i + 2}: column ${PAIR_COLUMNS[col]}: expected a finite number (m), got '${junk}'`,
            );
        },
      ),
    );
  });
});
