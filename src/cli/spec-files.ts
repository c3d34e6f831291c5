/**
 * Loading the spec data files (clause library, task map, platform profiles) from disk: the only
 * place they are read; parsing and validation are pure (src/safety, src/schema).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crossCheckPlatforms, parseClauseLibrary, parseTaskMap, type ScoringSpec } from '../safety/index.js';
import { parsePlatformProfiles } from '../schema/platform.js';
import { packageFile } from '../platform/package-files.js';

/** The package's spec/ directory (the checkout's, or the installed package's — not the cwd's). */
export const DEFAULT_SPEC_DIR = packageFile('spec');

export interface SpecPaths {
  clauses: string;
  tasks: string;
  platforms: string;
}

export function defaultSpecPaths(dir = DEFAULT_SPEC_DIR): SpecPaths {
  return { clauses: resolve(dir, 'clauses.yaml'), tasks: resolve(dir, 'tasks.yaml'), platforms: resolve(dir, 'platforms.yaml') };
}

/** Read, parse and cross-check the three spec files; problems name file, line and field. */
export function loadScoringSpec(paths: SpecPaths): { ok: true; spec: ScoringSpec } | { ok: false; problems: string[] } {
  const read = (p: string): string | { error: string } => {
    try {
      return readFileSync(p, 'utf8');
    } catch (e) {
      return { error: `${p}: cannot read: ${(e as Error).message}` };
    }
  };
  const texts = { clauses: read(paths.clauses), tasks: read(paths.tasks), platforms: read(paths.platforms) };
  const problems = Object.values(texts).flatMap((t) => (typeof t === 'string' ? [] : [t.error]));
  if (problems.length > 0) return { ok: false, problems };
  const library = parseClauseLibrary(texts.clauses as string, paths.clauses);
  if (!library.ok) return { ok: false, problems: library.error.map((e) => e.message) };
  const tasks = parseTaskMap(texts.tasks as string, paths.tasks, library.value.tags);
  const platforms = parsePlatformProfiles(texts.platforms as string, paths.platforms);
  if (!tasks.ok) problems.push(...tasks.error.map((e) => e.message));
  if (!platforms.ok) problems.push(...platforms.error.map((e) => e.message));
  if (!tasks.ok || !platforms.ok) return { ok: false, problems };
  const cross = crossCheckPlatforms(library.value, platforms.value);
  if (cross.length > 0) return { ok: false, problems: cross.map((e) => e.message) };
  return { ok: true, spec: { library: library.value, tasks: tasks.value, platforms: platforms.value } };
}
