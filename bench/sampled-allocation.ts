/**
 * Bytes allocated per unit of work, garbage included (heap growth shows only what is retained),
 * estimated by V8's sampling heap profiler at a 64-byte interval with objects that minor and major
 * GCs collected kept, split by where the allocating frame's code lives: src/ (armguard), test/
 * (models the benches borrow from the tests), anything else (Node, V8 builtins, the bench itself).
 */
import type { HeapProfiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';

export interface SampledAllocation {
  src: number;
  test: number;
  other: number;
  units: number;
  /** Bytes per unit by allocating frame (function, file:line), largest first, the top 12. */
  sites: { site: string; bytes: number }[];
}

/** `run` does some work and returns how many units it did; it is warmed up first, then sampled over `calls` calls. */
export async function sampledAllocation(run: () => number, calls: number): Promise<SampledAllocation> {
  let units = 0;
  for (let i = 0; i < Math.max(10, calls / 10); i++) run();
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 64,
    includeObjectsCollectedByMinorGC: true,
    includeObjectsCollectedByMajorGC: true,
  } as HeapProfiler.StartSamplingParameterType);
  for (let i = 0; i < calls; i++) units += run();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const bytes = { src: 0, test: 0, other: 0 };
  const bySite = new Map<string, number>();
  const walk = (node: HeapProfiler.SamplingHeapProfileNode): void => {
    const { url, functionName, lineNumber } = node.callFrame;
    bytes[url.includes('/src/') ? 'src' : url.includes('/test/') ? 'test' : 'other'] += node.selfSize;
    if (node.selfSize > 0) {
      const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    }
    for (const c of node.children) walk(c);
  };
  walk(profile.head);
  const sites = [...bySite]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([site, b]) => ({ site, bytes: Math.round(b / units) }));
  return {
    src: Math.round(bytes.src / units),
    test: Math.round(bytes.test / units),
    other: Math.round(bytes.other / units),
    units,
    sites,
  };
}
