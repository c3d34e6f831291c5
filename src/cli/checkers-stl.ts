import { parseSpecFile } from '../stl/index.js';
import type { FileChecker } from './checkers.js';

/** `armguard check foo.stl`: an STL spec file (declarations, helpers, formulas; see src/stl/spec-file.ts). */
export const stlSpecChecker: FileChecker = {
  kind: 'STL spec (.stl)',
  accepts: (path) => path.endsWith('.stl'),
  check(path, text) {
    const r = parseSpecFile(text);
    return r.ok ? [] : r.errors.map((e) => `${path}:${e.line}:${e.column}: ${e.message}`);
  },
  describe(_path, text) {
    const r = parseSpecFile(text);
    return r.ok ? `STL spec: ${r.spec.signals.length} signals, ${r.spec.formulas.length} formulas` : 'STL spec';
  },
};
