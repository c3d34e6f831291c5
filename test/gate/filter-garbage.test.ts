import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the chunk-level CBF filter leaves (almost) no garbage per call', () => {
  // Its garbage was collected inside later filter calls while the pilot's episodes allocated around
  // them: 58 KB per call on the pilot's Panda calls, from a subarray view per barrier model per
  // evaluation (BarrierStack) and a boxed joint angle per joint per forward kinematics (a number
  // argument to a call V8 did not inline). A separate process: a young generation of its own, large
  // enough that no collection falls among the measured calls, and V8's own view of its heap.
  it('Panda cbf filter, re-checking passing chunks: under 4 KB per call once optimised (12 KB before)', () => {
    const out = execFileSync(
      process.execPath,
      ['--max-semi-space-size=64', '--import', 'tsx', join(repoRoot, 'test/gate/support/filter-garbage.ts')],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
    );
    const r = JSON.parse(out.trim().split('\n').pop()!) as { bytesPerCall: number; calls: number; gcs: number };
    expect(r.gcs).toBe(0);
    expect(r.bytesPerCall).toBeLessThan(4096);
  });
});
