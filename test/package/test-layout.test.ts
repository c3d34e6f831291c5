/**
 * One test-support convention (issue 17 item 7): a test file ends in `.test.ts`; every other
 * TypeScript file under test/ is support code (fixtures, references, harnesses, contract suites) and
 * lives in a `support/` directory — `test/support/` when several areas share it, `test/<area>/support/`
 * when one area does. Data files sit in `test/fixtures/`.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const testRoot = join(repoRoot, 'test');
const files = filesUnder(testRoot).map((f) => relative(testRoot, f).split(sep).join('/'));

describe('test tree layout', () => {
  it('finds the test files it checks (the walk reached the tree)', () => {
    expect(files.filter((f) => f.endsWith('.test.ts')).length).toBeGreaterThan(100);
  });

  it('keeps every TypeScript file that is not a test in a support/ directory', () => {
    const outliers = files.filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.split('/').slice(0, -1).includes('support'),
    );
    expect(outliers).toEqual([]);
  });

  it('keeps data files in test/fixtures/', () => {
    const stray = files.filter((f) => !f.endsWith('.ts') && !f.startsWith('fixtures/'));
    expect(stray).toEqual([]);
  });
});
