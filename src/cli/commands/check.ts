import { readFile } from 'node:fs/promises';
import { EXIT, type Command } from '../command.js';
import type { FileChecker } from '../checkers.js';
import { userOrPackagePath } from '../../platform/package-files.js';
import { stlSpecChecker } from '../checkers-stl.js';
import { clauseLibraryChecker, platformChecker, taskMapChecker } from '../checkers-spec.js';
import { so101CalibrationChecker } from '../checkers-so101.js';
import { hazardLexiconChecker } from '../checkers-semantic.js';

/** Every file kind `check` knows, tried in this order. */
export const fileCheckers: readonly FileChecker[] = [
  stlSpecChecker,
  clauseLibraryChecker,
  taskMapChecker,
  platformChecker,
  so101CalibrationChecker,
  hazardLexiconChecker,
];

export const checkCommand: Command = {
  name: 'check',
  get help() {
    return `usage: armguard check <file>...

Validates each file against its schema and prints every problem with file, line and field.
Exit code 0 when all files are valid, 1 otherwise.

File kinds: ${fileCheckers.map((c) => c.kind).join(', ') || 'none yet'}

examples:
  armguard check clauses.stl
  armguard check calibration/so101-follower1.yaml`;
  },
  async run(args, io) {
    if (args.length === 0) {
      io.err('armguard check: no file given (usage: armguard check <file>...)');
      return EXIT.usage;
    }
    let failed = false;
    for (const path of args.map(userOrPackagePath)) {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        io.err(`${path}: cannot read: ${(e as Error).message}`);
        failed = true;
        continue;
      }
      const checker = fileCheckers.find((c) => c.accepts(path, text));
      if (!checker) {
        io.err(`${path}: unknown file kind (known: ${fileCheckers.map((c) => c.kind).join(', ') || 'none'})`);
        failed = true;
        continue;
      }
      const problems = await checker.check(path, text);
      if (problems.length > 0) {
        failed = true;
        for (const p of problems) io.err(p);
      } else {
        io.out(`${path}: ok (${checker.describe ? checker.describe(path, text) : checker.kind})`);
        for (const line of checker.explain?.(path, text) ?? []) io.out(`  ${line}`);
      }
    }
    return failed ? EXIT.failure : EXIT.ok;
  },
};
