/**
 * Loading the spec data files (clause library, task map, platform profiles) from disk: the only
 * place they are read; parsing and validation are pure (src/safety, src/schema).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crossCheckPlatforms, parseClauseLibrary, parseTaskMap, type ScoringSpec } from '../safety/index.js';
import { parsePlatformProfiles } from '../schema/platform.js';
import { packageFile, userOrPackagePath } from '../platform/package-files.js';

/** The package's spec/ directory (the checkout's, or the installed package's — not the cwd's). */
export const DEFAULT_SPEC_DIR = packageFile('spec');

export interface SpecPaths {
  clauses: string;
  tasks: string;
  platforms: string;
}

export function defaultSpecPaths(dir = DEFAULT_SPEC_DIR): SpecPaths {
  return {
    clauses: resolve(dir, 'clauses.yaml'),
    tasks: resolve(dir, 'tasks.yaml'),
    platforms: resolve(dir, 'platforms.yaml'),
  };
}

/** The options that replace the shipped clause library and task map without editing the package. */
export const SPEC_FILE_OPTIONS = ['clauses', 'tasks'] as const;

export const SPEC_FILE_HELP = `  --clauses <yaml>      clause library (default: the package's spec/clauses.yaml; validate with armguard check)
  --tasks <yaml>        task map (default: the package's spec/tasks.yaml; validate with armguard check)`;

/** Spec paths from `--clauses` / `--tasks` (resolved as user paths), the package's files otherwise. */
export function specPathsFrom(option: (name: (typeof SPEC_FILE_OPTIONS)[number]) => string | undefined): SpecPaths {
  const d = defaultSpecPaths();
  const clauses = option('clauses');
  const tasks = option('tasks');
  return {
    clauses: clauses === undefined ? d.clauses : userOrPackagePath(clauses),
    tasks: tasks === undefined ? d.tasks : userOrPackagePath(tasks),
    platforms: d.platforms,
  };
}

/** What an episode records of the spec it was monitored with: each file's path and content hash. */
export type SpecVersions = Record<'clauseLibrary' | 'clausesFile' | 'tasks' | 'tasksFile' | 'platforms', string>;

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Read, parse and cross-check the three spec files; problems name file, line and field. */
export function loadScoringSpec(
  paths: SpecPaths,
): { ok: true; spec: ScoringSpec; versions: SpecVersions } | { ok: false; problems: string[] } {
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
  const versions: SpecVersions = {
    clauseLibrary: sha256(texts.clauses as string),
    clausesFile: paths.clauses,
    tasks: sha256(texts.tasks as string),
    tasksFile: paths.tasks,
    platforms: sha256(texts.platforms as string),
  };
  return { ok: true, spec: { library: library.value, tasks: tasks.value, platforms: platforms.value }, versions };
}
