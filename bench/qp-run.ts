/**
 * QP runner: solves every problem of a file in the shared/qp JSON format (one problem or
 * {"problems": [...]}) and prints one JSON line per problem:
 *   {"status","objective","iterations","max_violation","solve_ms"}
 *
 * usage: npx tsx bench/qp-run.ts <file.json> [--max-iterations N] [--repeat R]
 * solve_ms is the median of R timed solves (default 3) after untimed warm-up solves (20 for the
 * first problem of each shape, so the JIT has compiled the solver; 1 otherwise). The solver
 * object is built once per shape and reused (setup not timed); every solve starts cold.
 */
import { readFileSync } from 'node:fs';
import { parseQpJson, QpSolver } from '../src/qp/index.js';
import { InputError } from '../src/util/errors.js';

function usage(message: string): never {
  console.error(`qp-run: ${message}\nusage: npx tsx bench/qp-run.ts <file.json> [--max-iterations N] [--repeat R]`);
  process.exit(2);
}

const args = process.argv.slice(2);
let file: string | undefined;
let maxIterations = 50;
let repeat = 3;
for (let k = 0; k < args.length; k++) {
  const a = args[k]!;
  const value = (): number => {
    const v = Number(args[++k]);
    if (!Number.isInteger(v) || v < 1) usage(`${a} needs a positive integer`);
    return v;
  };
  if (a === '--max-iterations') maxIterations = value();
  else if (a === '--repeat') repeat = value();
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else if (file === undefined) file = a;
  else usage(`unexpected argument ${a}`);
}
if (file === undefined) usage('missing <file.json>');

let problems;
try {
  problems = parseQpJson(readFileSync(file, 'utf8'), file);
} catch (e) {
  if (e instanceof InputError || (e as NodeJS.ErrnoException).code !== undefined) usage((e as Error).message);
  throw e;
}

let solver: QpSolver | undefined;
const options = { maxIterations };
const times = new Float64Array(repeat);
for (const problem of problems) {
  let warmups = 1;
  if (solver === undefined || !solver.accepts(problem)) {
    solver = new QpSolver(problem);
    warmups = 20;
  }
  for (let w = 0; w < warmups; w++) solver.solve(problem, options);
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    solver.solve(problem, options);
    times[r] = performance.now() - t0;
  }
  const result = solver.solve(problem, options);
  times.sort();
  console.log(
    JSON.stringify({
      status: result.status,
      objective: result.objective,
      iterations: result.iterations,
      max_violation: result.maxViolation,
      solve_ms: Number(times[repeat >> 1]!.toFixed(4)),
    }),
  );
}
