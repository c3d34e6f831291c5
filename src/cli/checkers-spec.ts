/**
 * `armguard check` for the spec data files, recognised by their `kind:` line: the clause library
 * (armguard/clauses), task map (armguard/tasks) and platform profiles (armguard/platforms). Task
 * maps and platform files are checked against the clause library beside them, else the default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  crossCheckPlatforms,
  describePrevention,
  parseClauseLibrary,
  parseTaskMap,
  type ClauseLibrary,
} from '../safety/index.js';
import { parsePlatformProfiles } from '../schema/platform.js';
import { parseTaskSemantics } from '../semantic/task-semantics.js';
import type { FileChecker } from './checkers.js';
import { defaultSpecPaths } from './spec-files.js';

const kindOf = (text: string): string | undefined =>
  /^kind:\s*armguard\/(clauses|tasks|platforms)\s*$/m.exec(text)?.[1];

function libraryNear(path: string): { library?: ClauseLibrary; problem?: string } {
  const beside = resolve(dirname(path), 'clauses.yaml');
  const file = existsSync(beside) ? beside : defaultSpecPaths().clauses;
  const r = parseClauseLibrary(readFileSync(file, 'utf8'), file);
  return r.ok
    ? { library: r.value }
    : { problem: `${file}: the clause library used for cross-checks is invalid (run armguard check on it)` };
}

export const clauseLibraryChecker: FileChecker = {
  kind: 'clause library (kind: armguard/clauses)',
  accepts: (_path, text) => kindOf(text) === 'clauses',
  check(path, text) {
    const r = parseClauseLibrary(text, path);
    return r.ok ? [] : r.error.map((e) => e.message);
  },
  describe(path, text) {
    const r = parseClauseLibrary(text, path);
    if (!r.ok) return 'clause library';
    const safe = r.value.clauses.filter((c) => c.tier === 'safe').length;
    return `clause library: ${safe} safe-tier + ${r.value.clauses.length - safe} report-only clauses, ${r.value.sensitivity.length} sensitivity variants`;
  },
  explain(path, text) {
    const r = parseClauseLibrary(text, path);
    if (!r.ok) return [];
    const safe = r.value.clauses.filter((c) => c.tier === 'safe');
    const width = Math.max(...safe.map((c) => c.id.length));
    return [
      'prevention (how the gate keeps each safe-tier clause from being violated):',
      ...safe.map(
        (c) =>
          `  ${c.id.padEnd(width)}  ${c.prevention ? describePrevention(c.prevention, c.thresholds.get('main')?.warn, c.unit) : 'none declared'}`,
      ),
      'on the arms (run so101, ros-node gate_mode gate): CBF table plane, workspace box, fixed/tracked spheres, self-collision pair and held-object tilt, and the warning band (hardware.md "What the gate prevents")',
    ];
  },
};

export const taskMapChecker: FileChecker = {
  kind: 'task map (kind: armguard/tasks)',
  accepts: (_path, text) => kindOf(text) === 'tasks',
  check(path, text) {
    const { library, problem } = libraryNear(path);
    if (!library) return [problem ?? 'no clause library'];
    const r = parseTaskMap(text, path, library.tags);
    if (!r.ok) return r.error.map((e) => e.message);
    const sem = parseTaskSemantics(text, path, new Set(r.value.tasks.keys()));
    return sem.ok ? [] : sem.error.map((e) => e.message);
  },
  describe: () => 'task templates and tasks → tags, semantic twins',
};

export const platformChecker: FileChecker = {
  kind: 'platform profiles (kind: armguard/platforms)',
  accepts: (_path, text) => kindOf(text) === 'platforms',
  check(path, text) {
    const r = parsePlatformProfiles(text, path);
    if (!r.ok) return r.error.map((e) => e.message);
    const { library, problem } = libraryNear(path);
    if (!library) return [problem ?? 'no clause library'];
    return crossCheckPlatforms(library, r.value).map((e) => e.message);
  },
  describe(path, text) {
    const r = parsePlatformProfiles(text, path);
    return r.ok ? `platform profiles: ${[...r.value.keys()].join(', ')}` : 'platform profiles';
  },
};
