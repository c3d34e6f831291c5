/**
 * The offline lexicon judge (issue 18): hazard source × affected target rules from
 * spec/hazard-lexicon.yaml. A rule matches when the actor carries a source tag and the target a
 * target tag — tags from the scene's tracked objects (their declared tags and the words of their
 * names) — or, for objects the scene does not describe, when the instruction names a source word
 * before a target word. It never looks at images and knows nothing outside its rules: what it does
 * not match it allows (its blind spots are documented in hardware.md). Pure: text in, verdicts out.
 */
import { YamlReader } from '../schema/yaml-reader.js';
import { type InputError, type Result, closestMatch, err, ok } from '../util/index.js';
import type { JudgeRequest, SceneObject } from './types.js';

export const HAZARD_CATEGORIES = ['food', 'property', 'chemical', 'privacy', 'fire', 'personal', 'electrical'] as const;
export type HazardCategory = (typeof HAZARD_CATEGORIES)[number];

export interface LexiconRule {
  readonly id: string;
  readonly category: HazardCategory;
  readonly source: readonly string[];
  readonly target: readonly string[];
  readonly reason: string;
}

export interface HazardLexicon {
  /** Tag → its words, each a list of lower-case tokens (multi-word phrases allowed). */
  readonly tags: ReadonlyMap<string, readonly (readonly string[])[]>;
  readonly rules: readonly LexiconRule[];
}

export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((s) => s !== '');
}

export function parseHazardLexicon(text: string, file: string): Result<HazardLexicon, InputError[]> {
  const r = new YamlReader(file, text);
  const tags = new Map<string, string[][]>();
  const rules: LexiconRule[] = [];
  const top = r.root === undefined ? undefined : r.map(r.root, '(document)', ['kind', 'version', 'tags', 'rules']);
  if (top) {
    const kind = r.required(top, 'kind', r.root, '(document)');
    if (kind !== undefined && r.string(kind, 'kind') !== 'armguard/hazard-lexicon')
      r.fail(kind, 'kind', "expected 'armguard/hazard-lexicon'");
    const tagsNode = r.required(top, 'tags', r.root, '(document)');
    for (const [name, { value }] of (tagsNode === undefined ? undefined : r.map(tagsNode, 'tags')) ?? []) {
      const f = `tags.${name}`;
      const e = r.map(value, f, ['words']);
      if (!e) continue;
      const wNode = r.required(e, 'words', value, f);
      const words = (wNode === undefined ? undefined : r.stringList(wNode, `${f}.words`)) ?? [];
      const phrases = words.map(tokenize).filter((p) => p.length > 0);
      if (wNode !== undefined && phrases.length === 0) r.fail(wNode, `${f}.words`, 'a tag needs at least one word');
      tags.set(name, phrases);
    }
    const rulesNode = r.required(top, 'rules', r.root, '(document)');
    const ids = new Set<string>();
    (rulesNode === undefined ? undefined : r.seq(rulesNode, 'rules'))?.forEach((node, i) => {
      const f = `rules[${i}]`;
      const e = r.map(node, f, ['id', 'category', 'source', 'target', 'reason']);
      if (!e) return;
      const id = r.string(r.required(e, 'id', node, f), `${f}.id`);
      if (id !== undefined && ids.has(id)) r.fail(node, `${f}.id`, `duplicate rule id '${id}'`);
      if (id !== undefined) ids.add(id);
      const category = r.oneOf(r.required(e, 'category', node, f), `${f}.category`, HAZARD_CATEGORIES);
      const tagList = (key: 'source' | 'target'): string[] => {
        const n = r.required(e, key, node, f);
        const list = (n === undefined ? undefined : r.stringList(n, `${f}.${key}`)) ?? [];
        if (n !== undefined && list.length === 0) r.fail(n, `${f}.${key}`, 'expected at least one tag');
        for (const t of list) {
          if (!tags.has(t)) {
            const hint = closestMatch(t, tags.keys());
            r.fail(
              n,
              `${f}.${key}`,
              `unknown tag '${t}'${hint ? ` (did you mean '${hint}'?)` : ''}; declare it under tags`,
            );
          }
        }
        return list;
      };
      const source = tagList('source');
      const target = tagList('target');
      const reason = r.string(r.required(e, 'reason', node, f), `${f}.reason`);
      if (id !== undefined && category !== undefined && reason !== undefined)
        rules.push({ id, category, source, target, reason });
    });
  }
  return r.errors.length > 0 ? err(r.errors) : ok({ tags, rules });
}

/** Token positions where a phrase starts. */
function phraseAt(tokens: readonly string[], phrase: readonly string[]): number[] {
  const at: number[] = [];
  for (let i = 0; i + phrase.length <= tokens.length; i++) {
    let m = true;
    for (let k = 0; k < phrase.length && m; k++) m = tokens[i + k] === phrase[k];
    if (m) at.push(i);
  }
  return at;
}

/** Positions in `tokens` of any word of any of `tags`. */
function tagPositions(lex: HazardLexicon, tokens: readonly string[], tags: readonly string[]): number[] {
  return tags.flatMap((t) => (lex.tags.get(t) ?? []).flatMap((p) => phraseAt(tokens, p)));
}

/** An object's tags: its declared tags plus the tags its name's words imply. */
export function objectTags(lex: HazardLexicon, o: SceneObject): Set<string> {
  const out = new Set(o.tags);
  const tokens = tokenize(o.name);
  for (const [tag, phrases] of lex.tags) if (phrases.some((p) => phraseAt(tokens, p).length > 0)) out.add(tag);
  return out;
}

export interface LexiconMatch {
  readonly rule: LexiconRule;
  /** `scene`: from tracked objects' tags; `instruction`: from the words of the instruction. */
  readonly via: 'scene' | 'instruction';
}

/** The first rule the request matches, or undefined (allow). */
export function matchLexicon(
  lex: HazardLexicon,
  req: Pick<JudgeRequest, 'instruction' | 'scene'>,
): LexiconMatch | undefined {
  const actors = req.scene.filter((o) => o.role === 'actor');
  const targets = req.scene.filter((o) => o.role === 'target');
  const actorTags = actors.map((o) => objectTags(lex, o));
  const targetTags = targets.map((o) => objectTags(lex, o));
  const tokens = tokenize(req.instruction);
  for (const rule of lex.rules) {
    const src = actorTags.some((ts) => rule.source.some((t) => ts.has(t)));
    const tgt = targetTags.some((ts) => rule.target.some((t) => ts.has(t)));
    if (src && tgt) return { rule, via: 'scene' };
  }
  for (const rule of lex.rules) {
    const s = tagPositions(lex, tokens, rule.source);
    const t = tagPositions(lex, tokens, rule.target);
    if (s.length > 0 && t.length > 0 && Math.min(...s) < Math.max(...t)) return { rule, via: 'instruction' };
  }
  return undefined;
}
