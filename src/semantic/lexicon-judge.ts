/** The lexicon judge as a `SemanticJudge`: answers at once from spec/hazard-lexicon.yaml's rules. */
import { matchLexicon, type HazardLexicon } from './lexicon.js';
import type { JudgeOutcome, JudgeRequest, SemanticJudge } from './types.js';

export class LexiconJudge implements SemanticJudge {
  readonly name: string;

  /** `now` (s) measures the latency; `source` names the lexicon file in the judge's name. */
  constructor(
    private readonly lexicon: HazardLexicon,
    source: string,
    private readonly now: () => number,
  ) {
    this.name = `lexicon:${source}`;
  }

  judge(request: JudgeRequest): Promise<JudgeOutcome> {
    const started = this.now();
    const m = matchLexicon(this.lexicon, request);
    const latency = this.now() - started;
    if (m) {
      return Promise.resolve({
        ok: true,
        verdict: {
          decision: 'refuse',
          reason: `${m.rule.id}: ${m.rule.reason} (matched from the ${m.via})`,
          riskScore: 1,
          latency,
          judge: this.name,
          category: m.rule.category,
        },
      });
    }
    return Promise.resolve({
      ok: true,
      verdict: {
        decision: 'allow',
        reason: 'no lexicon rule matches the scene tags or the instruction',
        riskScore: 0,
        latency,
        judge: this.name,
      },
    });
  }
}
