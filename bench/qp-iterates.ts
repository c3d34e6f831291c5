/**
 * Fingerprint of the QP solver's iterates, for refactors that must not change them: solves the
 * `gen-chunk-qp.mjs --seq 20` sequences (6 and 7 joints, 2–4 pairs, seeds 1–5; cold, primal warm
 * start and primal-dual warm start from the previous solution), ../shared/qp/chunk_H50_n6.json
 * (default and 1e-6 tolerances), 200 random staged problems with an infeasible twin each
 * (certificate paths) and three hand-made ones (unbounded, equality rows), and records status,
 * reason, iteration count and the bits of x, y, objective and residuals of every solve.
 *
 *   npx tsx bench/qp-iterates.ts --write /tmp/before.json     # on the old code
 *   npx tsx bench/qp-iterates.ts --compare /tmp/before.json   # on the new code: exits 1 on any difference
 *
 * --compare also counts the differing solves whose status or reason changed, whose iteration count
 * changed, and among the solved ones the largest change of x (relative to max(1, ‖x‖∞)) — for a change
 * that reorders sums and so cannot keep every bit.
 *
 * ARMGUARD_SHARED overrides the location of shared/ (default: beside the repository).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QpSolver, parseQpJson } from '../src/qp/index.js';
import type { QpResult } from '../src/qp/index.js';
import { toProblem } from '../test/qp/support/build.js';
import { makeInfeasible, randomStagedQp } from '../test/qp/support/random-qp.js';

const shared = process.env.ARMGUARD_SHARED ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared');
const mode = process.argv[2];
const file = process.argv[3];
if ((mode !== '--write' && mode !== '--compare') || file === undefined) {
  console.error('usage: npx tsx bench/qp-iterates.ts --write|--compare <file.json>');
  process.exit(2);
}

interface Fingerprint {
  label: string;
  status: string;
  reason: string;
  iterations: number;
  numbers: string;
  x: string;
  y: string;
}
const hex = (a: ArrayLike<number>): string => Buffer.from(Float64Array.from(a).buffer).toString('hex');
const records: Fingerprint[] = [];
function put(label: string, r: QpResult): void {
  records.push({
    label,
    status: r.status,
    reason: r.status === 'solved' ? '' : r.reason,
    iterations: r.iterations,
    numbers: hex([r.objective, r.maxViolation, r.primalResidual, r.dualResidual, r.complementarity]),
    x: hex(r.x),
    y: hex(r.y),
  });
}

for (const joints of [6, 7]) {
  for (const seed of [1, 2, 3, 4, 5]) {
    for (const pairs of [2, 3, 4]) {
      const args = ['--seq', '20', '--n', String(joints), '--pairs', String(pairs), '--seed', String(seed)];
      const problems = parseQpJson(
        execFileSync(process.execPath, [resolve(shared, 'qp/gen-chunk-qp.mjs'), ...args], {
          encoding: 'utf8',
          maxBuffer: 1 << 28,
        }),
        'gen-chunk-qp',
      );
      const solver = new QpSolver(problems[0]!);
      let prev: Float64Array | undefined;
      let prevY: Float64Array | undefined;
      problems.forEach((p, k) => {
        const tag = `n${joints} p${pairs} s${seed} #${k}`;
        put(`${tag} cold`, solver.solve(p, { maxIterations: 40 }));
        if (prev) put(`${tag} warm`, solver.solve(p, { maxIterations: 40, warmStart: prev }));
        if (prev && prevY)
          put(`${tag} warm+dual`, solver.solve(p, { maxIterations: 40, warmStart: prev, warmStartDual: prevY }));
        const r = solver.solve(p, { maxIterations: 40 });
        prev = Float64Array.from(r.x);
        prevY = Float64Array.from(r.y);
      });
    }
  }
}
for (const [k, p] of parseQpJson(
  readFileSync(resolve(shared, 'qp/chunk_H50_n6.json'), 'utf8'),
  'chunk_H50_n6.json',
).entries()) {
  const s = new QpSolver(p);
  put(`chunk_H50_n6 #${k} default`, s.solve(p));
  put(`chunk_H50_n6 #${k} 1e-6`, s.solve(p, { epsAbs: 1e-6, epsRel: 1e-6, maxIterations: 30 }));
}
for (let seed = 1; seed <= 200; seed++) {
  const s = randomStagedQp(seed, 2 + (seed % 5), 1 + (seed % 3), 2 + (seed % 9));
  for (const [tag, sq] of [
    ['feasible', s],
    ['infeasible', makeInfeasible(s, seed)],
  ] as const) {
    const p = toProblem(sq.qp);
    put(`random ${seed} ${tag}`, new QpSolver(p).solve(p));
  }
}
for (const qp of [
  {
    n: 2,
    P: [
      [0, 0],
      [0, 0],
    ],
    q: [-1, 0.5],
    A: [
      [1, 0],
      [0, 1],
    ],
    l: [0, 0],
    u: [Infinity, Infinity],
  },
  {
    n: 2,
    P: [
      [1, 0],
      [0, 0],
    ],
    q: [0, -1],
    A: [[1, 1]],
    l: [-1],
    u: [Infinity],
  },
  {
    n: 2,
    P: [
      [1, 0],
      [0, 1],
    ],
    q: [1, 1],
    A: [
      [1, 1],
      [1, -1],
    ],
    l: [1, 0],
    u: [1, 0],
  },
]) {
  const p = toProblem(qp);
  put(`hand ${JSON.stringify(qp.q)}`, new QpSolver(p).solve(p));
}

if (mode === '--write') {
  writeFileSync(file, JSON.stringify(records));
  console.log(JSON.stringify({ written: file, solves: records.length }));
} else {
  const before = JSON.parse(readFileSync(file, 'utf8')) as Fingerprint[];
  const floats = (h: string): Float64Array => {
    const b = Buffer.from(h, 'hex');
    return new Float64Array(b.buffer, b.byteOffset, b.length / 8);
  };
  let differ = 0;
  let statusChanged = 0;
  let iterationsChanged = 0;
  // among solved problems that differ in bits: how many, and the largest change of x relative to max(1, ‖x‖∞)
  let solvedDiffer = 0;
  let maxRelativeDx = 0;
  const firstDifferences: string[] = [];
  if (before.length !== records.length) differ = Math.abs(before.length - records.length);
  for (let k = 0; k < Math.min(before.length, records.length); k++) {
    const a = before[k]!;
    const b = records[k]!;
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      differ++;
      if (a.status !== b.status || a.reason !== b.reason) statusChanged++;
      else if (a.status === 'solved') {
        solvedDiffer++;
        const xa = floats(a.x);
        const xb = floats(b.x);
        let scale = 1;
        let d = 0;
        for (let j = 0; j < xa.length; j++) {
          scale = Math.max(scale, Math.abs(xa[j]!));
          d = Math.max(d, Math.abs(xa[j]! - xb[j]!));
        }
        maxRelativeDx = Math.max(maxRelativeDx, d / scale);
      }
      if (a.iterations !== b.iterations) iterationsChanged++;
      if (firstDifferences.length < 5)
        firstDifferences.push(`${b.label}: ${a.status}/${a.iterations} → ${b.status}/${b.iterations}`);
    }
  }
  console.log(
    JSON.stringify({
      compared: records.length,
      bitIdentical: records.length - differ,
      differ,
      statusChanged,
      iterationsChanged,
      solvedDiffer,
      maxRelativeDx,
      firstDifferences,
    }),
  );
  if (differ > 0) process.exit(1);
}
