/**
 * Benchmark (issue 16): start-up of the compiled `armguard` command — a new process per run, median
 * of 10 after one warm-up. Targets: `armguard --help` ≤ 150 ms, `armguard stl` on a 3-line trace
 * ≤ 300 ms. Needs a build (`npm run build`). Per command: wall time from spawn to exit, and the
 * child's own CPU time (user + system, read by a preloaded exit hook), which — unlike wall time —
 * does not grow when other processes share the cores. A bare `node -e 0` is the floor of both.
 *
 *   npx tsx bench/cli-startup.ts [path/to/armguard-bin] [runs]
 *
 * The default bin is this checkout's bin/armguard.mjs; give an installed package's
 * node_modules/.bin/armguard to measure that (same code, node_modules layout of a user).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from '../src/report/metrics/index.js';

const root = resolve(import.meta.dirname, '..');
const bin = resolve(process.argv[2] ?? join(root, 'bin/armguard.mjs'));
const runs = Number(process.argv[3] ?? 10);
if (!process.argv[2] && !existsSync(join(root, 'dist/src/cli/main.js'))) {
  console.error('bench/cli-startup: no build — run `npm run build` first');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'armguard-startup-'));
const trace = join(dir, 'trace.csv');
writeFileSync(trace, 't,x\n0,1\n0.1,2\n0.2,0.5\n');

interface Case {
  name: string;
  args: string[];
  targetMs?: number;
}
const cases: Case[] = [
  { name: 'armguard --version', args: ['--version'] },
  { name: 'armguard --help', args: ['--help'], targetMs: 150 },
  { name: 'armguard stl (3-line trace)', args: ['stl', '--spec', 'G[0,0.2] (x > 0)', '--trace', trace], targetMs: 300 },
  {
    name: 'armguard check spec/*.yaml',
    args: ['check', ...['clauses', 'tasks', 'platforms'].map((f) => join(root, 'spec', `${f}.yaml`))],
  },
  { name: 'armguard demo --help', args: ['demo', '--help'] },
];

/** Preloaded into each child: at exit, write its CPU time (ms) to fd 3. */
const EXIT_HOOK = `data:text/javascript,${encodeURIComponent("import{writeSync}from'node:fs';process.on('exit',()=>{const u=process.cpuUsage();writeSync(3,String((u.user+u.system)/1000))})")}`;

console.log(
  `bin: ${bin}\nnode ${process.version}, ${runs} runs per command, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores\n`,
);
console.log('| command | wall median (ms) | wall min–max (ms) | CPU median (ms) | CPU over the floor (ms) | target |');
console.log('|---|---|---|---|---|---|');
const floor = row('node -e 0 (floor)', ['-e', '0']);
let failed = false;
for (const c of cases) {
  const { wall, cpu } = row(c.name, [bin, ...c.args], c.targetMs, floor.cpu);
  if (c.targetMs !== undefined && Math.min(wall, cpu) > c.targetMs) failed = true;
}
rmSync(dir, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;

function row(name: string, argv: string[], targetMs?: number, floorCpu?: number): { wall: number; cpu: number } {
  run(argv); // warm-up (file system cache)
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = run(argv);
    walls.push(r.wall);
    cpus.push(r.cpu);
  }
  const wall = median(walls),
    cpu = median(cpus);
  const mark = (v: number) => (targetMs === undefined ? '' : v <= targetMs ? '✓' : '✗');
  const verdict = targetMs === undefined ? '' : `≤ ${targetMs} ms: wall ${mark(wall)}, CPU ${mark(cpu)}`;
  const over = floorCpu === undefined ? '—' : (cpu - floorCpu).toFixed(1);
  console.log(
    `| ${name} | ${wall.toFixed(1)} | ${Math.min(...walls).toFixed(1)}–${Math.max(...walls).toFixed(1)} | ${cpu.toFixed(1)} | ${over} | ${verdict} |`,
  );
  return { wall, cpu };
}

function run(argv: string[]): { wall: number; cpu: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', EXIT_HOOK, ...argv], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: Number(r.output[3]) };
}
