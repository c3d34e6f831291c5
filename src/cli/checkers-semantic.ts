/** `armguard check` for the hazard lexicon (kind: armguard/hazard-lexicon), issue 18. */
import { parseHazardLexicon } from '../semantic/index.js';
import type { FileChecker } from './checkers.js';

export const hazardLexiconChecker: FileChecker = {
  kind: 'hazard lexicon (kind: armguard/hazard-lexicon)',
  accepts: (_path, text) => /^kind:\s*armguard\/hazard-lexicon\s*$/m.test(text),
  check(path, text) {
    const r = parseHazardLexicon(text, path);
    return r.ok ? [] : r.error.map((e) => e.message);
  },
  describe(path, text) {
    const r = parseHazardLexicon(text, path);
    return r.ok
      ? `hazard lexicon: ${r.value.tags.size} tags, ${r.value.rules.length} source × target rules`
      : 'hazard lexicon';
  },
};
