/**
 * Machine-speed probe run beside a benchmark: CPU ms for 1e8 multiply-adds over a Float64Array, best
 * of 3 (about 80–120 ms on a core of this machine class). On a shared or virtualised machine it shows
 * how much slower a CPU-millisecond was during the run.
 */
export function calibrationMs(): number {
  const a = new Float64Array(1000).fill(1);
  let best = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    const c0 = process.cpuUsage();
    let s = 0;
    for (let r = 0; r < 100000; r++) for (let i = 0; i < 1000; i++) s += a[i]! * 1.0001 + i;
    const c = process.cpuUsage(c0);
    if (s === 0) console.log('');
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return Number(best.toFixed(1));
}
