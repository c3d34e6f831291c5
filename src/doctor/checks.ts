/**
 * `armguard doctor`: what a first run needs, checked one small function at a time. Each check
 * reports pass or fail with what it found and, when it fails, the fix. Checks get everything they
 * touch (filesystem roots, environment, serial bus, ROS graph) through ports, so tests run them
 * against the servo emulator over a real pty and against injected sysfs/proc/env roots.
 */

export type CheckStatus = 'pass' | 'fail';

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** What was found (one or more lines). */
  readonly detail: string;
  /** What to do about a failure (commands to run). */
  readonly fix?: string;
}

export interface Check<C> {
  readonly id: string;
  readonly title: string;
  run(ctx: C): Promise<Omit<CheckResult, 'id' | 'title'>>;
}

export const pass = (detail: string): Omit<CheckResult, 'id' | 'title'> => ({ status: 'pass', detail });
export const fail = (detail: string, fix: string): Omit<CheckResult, 'id' | 'title'> => ({
  status: 'fail',
  detail,
  fix,
});

/** Run the checks in order; a check that throws fails with the error (never aborts the rest). */
export async function runChecks<C>(checks: readonly Check<C>[], ctx: C): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const c of checks) {
    let r: Omit<CheckResult, 'id' | 'title'>;
    try {
      r = await c.run(ctx);
    } catch (e) {
      r = fail(
        `the check itself failed: ${e instanceof Error ? e.message : String(e)}`,
        'report this as an armguard bug with the output above',
      );
    }
    out.push({ id: c.id, title: c.title, ...r });
  }
  return out;
}

/** Every check passed: the only case `armguard doctor` exits 0. */
export function allPassed(results: readonly CheckResult[]): boolean {
  return results.length > 0 && results.every((r) => r.status === 'pass');
}

const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');

export function formatResults(results: readonly CheckResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.status === 'pass' ? 'PASS' : 'FAIL'}  ${r.title}`);
    lines.push(indent(r.detail, '      '));
    if (r.status === 'fail' && r.fix) lines.push(indent(`fix: ${r.fix}`, '      '));
  }
  const failed = results.filter((r) => r.status === 'fail').length;
  lines.push('', failed === 0 ? `all ${results.length} checks passed` : `${failed} of ${results.length} checks failed`);
  return lines.join('\n');
}
