import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stepToBoundary } from '../../src/qp/kernels.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('stepToBoundary: the ratio test of every bound', () => {
  it('is the largest step ≤ α that keeps s + α·d ≥ 0 (hand-computed cases)', () => {
    expect(stepToBoundary(1, 2, -4)).toBe(0.5); // 2 − 0.5·4 = 0
    expect(stepToBoundary(0.25, 2, -4)).toBe(0.25); // already shorter
    expect(stepToBoundary(1, 2, 3)).toBe(1); // moving away from the bound
    expect(stepToBoundary(1, 0, 0)).toBe(1);
    expect(stepToBoundary(1, 1e-3, -1)).toBe(1e-3);
    // a step that starts on the bound and moves into it cannot be taken at all
    expect(stepToBoundary(1, 0, -1)).toBe(0);
  });
});

describe('the interior point’s ratio tests do not deoptimise when a new kind of bound first limits a step', () => {
  // V8 compiles an operation that has not run before the code is optimised into a deoptimisation,
  // and keeps the code on that kind of deoptimisation: with a division per bound kind, the upper
  // bounds' ratio tests, first reached after the solver was optimised on problems without them,
  // deoptimised the step-length and Newton-direction loops (the fragile pilot's Panda: some 20 times
  // in its first three episodes). A separate process, traced by V8 itself.
  it('no "insufficient type feedback" deoptimisation of updateStepMax, direction or centralityCorrector', () => {
    const out = execFileSync(
      process.execPath,
      ['--trace-opt', '--trace-deopt', '--import', 'tsx', join(repoRoot, 'test/qp/support/ratio-test-deopts.ts')],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const marker = out.indexOf('=== upper bounds from here');
    expect(marker).toBeGreaterThan(0);
    const before = out.slice(0, marker);
    const after = out.slice(marker);
    // the first phase did optimise the step length's loop (else there would be nothing to deoptimise)
    expect(before).toMatch(/completed optimizing .*<JSFunction updateStepMax /);
    const ratioDeopts = after
      .split('\n')
      .filter(
        (l) =>
          l.includes('bailout') &&
          l.includes('Insufficient type feedback') &&
          /<JSFunction (updateStepMax|direction|centralityCorrector) /.test(l),
      );
    expect(ratioDeopts).toEqual([]);
  });
});
