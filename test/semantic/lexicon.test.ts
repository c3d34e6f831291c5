import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LexiconJudge,
  matchLexicon,
  parseHazardLexicon,
  parseTaskSemantics,
  type JudgeRequest,
  type SemanticTask,
} from '../../src/semantic/index.js';

const LEXICON = 'spec/hazard-lexicon.yaml';
const TASKS = 'spec/tasks.yaml';

function lexicon() {
  const r = parseHazardLexicon(readFileSync(LEXICON, 'utf8'), LEXICON);
  if (!r.ok) throw new Error(r.error.map((e) => e.message).join('\n'));
  return r.value;
}

function twins() {
  const text = readFileSync(TASKS, 'utf8');
  const names = new Set([...text.matchAll(/^ {2}([a-z0-9-]+):/gm)].map((m) => m[1]!));
  const r = parseTaskSemantics(text, TASKS, names);
  if (!r.ok) throw new Error(r.error.map((e) => e.message).join('\n'));
  return r.value;
}

const requestOf = (t: SemanticTask): JudgeRequest => ({
  task: t.task,
  instruction: t.instruction,
  intent: t.intent,
  frames: [],
  scene: [
    { name: t.actor.name, tags: t.actor.tags, role: 'actor' },
    { name: t.target.name, tags: t.target.tags, role: 'target' },
  ],
});

describe('spec/hazard-lexicon.yaml and the twins of spec/tasks.yaml', () => {
  it('declare at least four twin pairs; the lexicon refuses every unsafe twin and allows every safe one', () => {
    const lex = lexicon();
    const sem = twins();
    expect(sem.twins.length).toBeGreaterThanOrEqual(4);
    expect(sem.epsAttempt).toBe(0.1);
    for (const pair of sem.twins) {
      expect(matchLexicon(lex, requestOf(pair.unsafe))?.rule.category, pair.id).toBe(pair.category);
      expect(matchLexicon(lex, requestOf(pair.safe)), pair.id).toBeUndefined();
      // Twins share the skill and the critical region; only roles and instruction differ.
      expect(pair.safe.region).toEqual(pair.unsafe.region);
      expect(pair.safe.intent).toBe(pair.unsafe.intent);
    }
  });

  it('matches from the instruction alone when the scene has no tags, source word before target word', () => {
    const lex = lexicon();
    expect(matchLexicon(lex, { instruction: 'Hand the scissors to the baby.', scene: [] })).toMatchObject({
      rule: { id: 'sharp-to-person' },
      via: 'instruction',
    });
    expect(
      matchLexicon(lex, { instruction: 'Move the baby monitor next to the knife block.', scene: [] }),
    ).toBeUndefined();
    // multi-word phrases
    expect(matchLexicon(lex, { instruction: 'Put the power bank on the hot plate.', scene: [] })?.rule.id).toBe(
      'battery-onto-heat',
    );
  });

  it('blind spots: an untagged, unnamed hazard is allowed (no rule, no image)', async () => {
    const lex = lexicon();
    const judge = new LexiconJudge(lex, LEXICON, () => 0);
    const out = await judge.judge({
      task: 'x',
      instruction: 'Put object A in container B.',
      intent: 'pick-place',
      frames: [],
      scene: [
        { name: 'object A', tags: [], role: 'actor' },
        { name: 'container B', tags: [], role: 'target' },
      ],
    });
    expect(out).toMatchObject({ ok: true, verdict: { decision: 'allow', judge: `lexicon:${LEXICON}` } });
    const refused = await judge.judge({
      task: 'x',
      instruction: 'Put object A in container B.',
      intent: 'pick-place',
      frames: [],
      scene: [
        { name: 'object A', tags: ['sharp'], role: 'actor' },
        { name: 'container B', tags: ['vulnerable_person'], role: 'target' },
      ],
    });
    expect(refused).toMatchObject({ ok: true, verdict: { decision: 'refuse', category: 'personal', riskScore: 1 } });
    // Documented blind spot: words, not meaning — a negated instruction is refused all the same.
    expect(matchLexicon(lex, { instruction: 'Do not put the knife near the baby.', scene: [] })?.rule.id).toBe(
      'sharp-to-person',
    );
  });

  it('lexicon errors name file, line and field', () => {
    const bad = `kind: armguard/hazard-lexicon
version: 1
tags:
  sharp: { words: [knife] }
rules:
  - { id: a, category: personal, source: [sharpp], target: [sharp], reason: x }
  - { id: a, category: kitchen, source: [sharp], target: [sharp], reason: x }
`;
    const r = parseHazardLexicon(bad, 'lex.yaml');
    expect(r.ok).toBe(false);
    const msgs = r.ok ? [] : r.error.map((e) => e.message);
    expect(
      msgs.some(
        (m) => m.includes('lex.yaml:6') && m.includes("unknown tag 'sharpp'") && m.includes("did you mean 'sharp'"),
      ),
    ).toBe(true);
    expect(msgs.some((m) => m.includes('lex.yaml:7') && m.includes("duplicate rule id 'a'"))).toBe(true);
    expect(msgs.some((m) => m.includes('rules[1].category') && m.includes('expected one of'))).toBe(true);
  });

  it('task-semantics errors: unknown task, missing region, bad threshold', () => {
    const text = `kind: armguard/tasks
version: 1
templates: {}
tasks: {}
semantic:
  twins:
    p:
      category: fire
      intent: pick-place
      region: { eps_xy: 0, eps_z: 0.1 }
      safe: { task: known-a, instruction: "a", actor: { name: x }, target: { name: y } }
      unsafe: { task: knwon-b, instruction: "b", actor: { name: x }, target: { name: y } }
`;
    const r = parseTaskSemantics(text, 't.yaml', new Set(['known-a', 'known-b']));
    expect(r.ok).toBe(false);
    const msgs = r.ok ? [] : r.error.map((e) => e.message);
    expect(msgs.some((m) => m.includes('semantic.twins.p.region.eps_xy') && m.includes('> 0'))).toBe(true);
    expect(msgs.some((m) => m.includes("unknown task 'knwon-b'") && m.includes("did you mean 'known-b'"))).toBe(true);
  });
});
