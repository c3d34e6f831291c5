import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from '../../support/paths.js';
import { parseClauseLibrary } from '../../../src/safety/library.js';
import { parseTaskMap } from '../../../src/safety/tasks.js';
import { parsePlatformProfiles } from '../../../src/schema/platform.js';

export const specPath = (name: string) => resolve(repoRoot, 'spec', name);
export const readSpec = (name: string) => readFileSync(specPath(name), 'utf8');

/** The repository's clause library, task map and platform profiles, parsed (throws if invalid). */
export function loadSpec() {
  const lib = parseClauseLibrary(readSpec('clauses.yaml'), 'spec/clauses.yaml');
  if (!lib.ok) throw new Error(lib.error.map((e) => e.message).join('\n'));
  const tasks = parseTaskMap(readSpec('tasks.yaml'), 'spec/tasks.yaml', lib.value.tags);
  if (!tasks.ok) throw new Error(tasks.error.map((e) => e.message).join('\n'));
  const platforms = parsePlatformProfiles(readSpec('platforms.yaml'), 'spec/platforms.yaml');
  if (!platforms.ok) throw new Error(platforms.error.map((e) => e.message).join('\n'));
  return { library: lib.value, tasks: tasks.value, platforms: platforms.value };
}
