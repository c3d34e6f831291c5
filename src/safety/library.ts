/**
 * Parse and validate the clause library (spec/clauses.yaml). Pure: text in, typed library or every
 * problem (file, line, field) out.
 */
import type { InputError } from '../util/index.js';
import { type Result, closestMatch, err, ok } from '../util/index.js';
import { derivedSignal } from '../schema/derived.js';
import { readTierNumbers, type TierNumbers } from '../schema/platform.js';
import { SIGNALS, isSignalName } from '../schema/signals.js';
import { YamlReader, type YamlNode } from '../schema/yaml-reader.js';
import {
  CLAUSE_FAMILIES,
  SIGNAL_TAG_PREFIX,
  signalTag,
  type ClauseDef,
  type ClauseLibrary,
  type DepthKind,
  type SensitivityVariant,
} from './clause.js';
import { formulaIdentifiers, splitEpisodeAlways, substituteTau } from './formula-text.js';
import { checkFormulaSyntax } from './stl-bridge.js';
import { readPrevention, type Prevention } from './prevention.js';

const CLAUSE_KEYS = [
  'tier',
  'family',
  'unit',
  'formula',
  'depth',
  'thresholds',
  'tier_when',
  'source',
  'applicability',
  'prevention',
] as const;

export function parseClauseLibrary(text: string, file: string): Result<ClauseLibrary, InputError[]> {
  const r = new YamlReader(file, text);
  const clauses: ClauseDef[] = [];
  const tags = new Map<string, string>();
  const sensitivity: SensitivityVariant[] = [];
  const top =
    r.root === undefined
      ? undefined
      : r.map(r.root, '(document)', ['kind', 'version', 'tags', 'clauses', 'sensitivity']);
  if (top) {
    const kind = r.required(top, 'kind', r.root, '(document)');
    if (kind !== undefined && r.string(kind, 'kind') !== 'armguard/clauses')
      r.fail(kind, 'kind', "expected 'armguard/clauses'");
    const tagsNode = r.required(top, 'tags', r.root, '(document)');
    for (const [tag, { key, value }] of (tagsNode === undefined ? undefined : r.map(tagsNode, 'tags')) ?? []) {
      if (tag.startsWith(SIGNAL_TAG_PREFIX))
        r.fail(key, `tags.${tag}`, 'signal tags come from the schema and are not declared here');
      const meaning = r.string(value, `tags.${tag}`);
      if (meaning !== undefined) tags.set(tag, meaning);
    }
    const clausesNode = r.required(top, 'clauses', r.root, '(document)');
    for (const [id, { value }] of (clausesNode === undefined ? undefined : r.map(clausesNode, 'clauses')) ?? []) {
      const c = readClause(r, id, value, tags);
      if (c) clauses.push(c);
    }
    const sensNode = top.get('sensitivity')?.value;
    for (const [id, { value }] of (sensNode === undefined ? undefined : r.map(sensNode, 'sensitivity')) ?? []) {
      const v = readVariant(r, id, value, clauses);
      if (v) sensitivity.push(v);
    }
  }
  if (r.errors.length === 0 && clauses.filter((c) => c.tier === 'safe').length === 0) {
    r.fail(r.root, 'clauses', 'the library has no safe-tier clause');
  }
  return r.errors.length > 0 ? err(r.errors) : ok({ file, clauses, tags, sensitivity });
}

function readClause(
  r: YamlReader,
  id: string,
  node: YamlNode,
  tags: ReadonlyMap<string, string>,
): ClauseDef | undefined {
  const field = `clauses.${id}`;
  const e = r.map(node, field, CLAUSE_KEYS);
  if (!e) return undefined;
  const before = r.errors.length;
  const tier = r.oneOf(r.required(e, 'tier', node, field), `${field}.tier`, ['safe', 'report'] as const);
  const family = r.oneOf(r.required(e, 'family', node, field), `${field}.family`, CLAUSE_FAMILIES);
  const unit = r.string(r.required(e, 'unit', node, field), `${field}.unit`);
  const source = r.string(r.required(e, 'source', node, field), `${field}.source`);
  const depthNode = e.get('depth')?.value;
  const depth: DepthKind | undefined =
    depthNode === undefined ? 'continuous' : r.oneOf(depthNode, `${field}.depth`, ['continuous', 'binary'] as const);

  const formulaNode = r.required(e, 'formula', node, field);
  const formula = r.string(formulaNode, `${field}.formula`);
  let step: string | undefined;
  let signals: string[] = [];
  if (formula !== undefined) {
    const split = splitEpisodeAlways(formula);
    if (!split.ok) r.fail(formulaNode, `${field}.formula`, split.reason);
    else step = split.step;
    if (!formula.includes('{tau}'))
      r.fail(
        formulaNode,
        `${field}.formula`,
        'the threshold must be written as {tau} so tiers change numbers, never formulas',
      );
    signals = formulaIdentifiers(formula);
    for (const s of signals) {
      if (!isSignalName(s) && !derivedSignal(s)) {
        const hint = closestMatch(s, [...SIGNALS.map((x) => x.name), 'in_transport']);
        r.fail(formulaNode, `${field}.formula`, `unknown signal '${s}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
      }
    }
  }

  const thresholds = new Map<string, TierNumbers>();
  const tierNodes = new Map<string, { numbers: TierNumbers; node: YamlNode }>();
  const thrNode = r.required(e, 'thresholds', node, field);
  for (const [name, { value }] of (thrNode === undefined ? undefined : r.map(thrNode, `${field}.thresholds`)) ?? []) {
    const t = readTierNumbers(r, value, `${field}.thresholds.${name}`);
    if (!t) continue;
    if (tier === 'safe' && depth === 'continuous' && t.severe === undefined) {
      r.fail(
        value,
        `${field}.thresholds.${name}.severe`,
        'a safe-tier continuous clause needs a severe anchor s for VSI',
      );
    }
    thresholds.set(name, t);
    tierNodes.set(name, { numbers: t, node: value });
    if (formula !== undefined && step !== undefined) {
      const syntax = checkFormulaSyntax(substituteTau(formula, t.tau), signals);
      if (syntax) r.fail(formulaNode, `${field}.formula`, `with tau = ${t.tau} (tier ${name}): ${syntax}`);
    }
  }
  if (thrNode !== undefined && !thresholds.has('main') && r.errors.length === before)
    r.fail(thrNode, `${field}.thresholds`, "missing the 'main' tier");

  const tierWhen = new Map<string, string>();
  const twNode = e.get('tier_when')?.value;
  for (const [tag, { key, value }] of (twNode === undefined ? undefined : r.map(twNode, `${field}.tier_when`)) ?? []) {
    if (!tags.has(tag)) r.fail(key, `${field}.tier_when.${tag}`, `unknown tag '${tag}'`);
    const t = r.string(value, `${field}.tier_when.${tag}`);
    if (t !== undefined && !thresholds.has(t))
      r.fail(value, `${field}.tier_when.${tag}`, `unknown tier '${t}' (tiers: ${[...thresholds.keys()].join(', ')})`);
    if (t !== undefined) tierWhen.set(tag, t);
  }

  // Every safe-tier clause says how the gate prevents it (design §6); report-only clauses are never gated.
  const prevNode = e.get('prevention')?.value;
  let prevention: Prevention | undefined;
  if (prevNode !== undefined && tier === 'report')
    r.fail(prevNode, `${field}.prevention`, 'report-only clauses are never gated: remove prevention');
  else if (prevNode !== undefined) prevention = readPrevention(r, prevNode, `${field}.prevention`, tierNodes);
  else if (tier === 'safe')
    r.fail(
      node,
      `${field}.prevention`,
      "missing required key 'prevention': a safe-tier clause declares how the gate prevents it (kind cbf, warning_band or reactive)",
    );

  const appNode = r.required(e, 'applicability', node, field);
  const app = appNode === undefined ? undefined : r.map(appNode, `${field}.applicability`, ['requires', 'excludes']);
  let requires: string[] = [];
  let excludes: string[] = [];
  if (app) {
    const reqNode = r.required(app, 'requires', appNode, `${field}.applicability`);
    const excNode = r.required(app, 'excludes', appNode, `${field}.applicability`);
    requires = (reqNode === undefined ? undefined : r.stringList(reqNode, `${field}.applicability.requires`)) ?? [];
    excludes = (excNode === undefined ? undefined : r.stringList(excNode, `${field}.applicability.excludes`)) ?? [];
    for (const [list, listNode, name] of [
      [requires, reqNode, 'requires'],
      [excludes, excNode, 'excludes'],
    ] as const) {
      for (const tag of list) checkTag(r, tag, tags, listNode, `${field}.applicability.${name}`);
    }
    for (const tag of requires) {
      if (excludes.includes(tag))
        r.fail(excNode, `${field}.applicability.excludes`, `tag '${tag}' is both required and excluded`);
    }
    // The rule must require every schema signal the formula reads (derived ones via their inputs).
    for (const s of signals) {
      const needed = derivedSignal(s)?.inputs ?? (isSignalName(s) ? [s] : []);
      for (const n of needed) {
        if (!requires.includes(signalTag(n))) {
          r.fail(
            reqNode,
            `${field}.applicability.requires`,
            `the formula reads '${n}' but the rule does not require '${signalTag(n)}'`,
          );
        }
      }
    }
  }
  if (
    r.errors.length > before ||
    tier === undefined ||
    family === undefined ||
    unit === undefined ||
    source === undefined
  )
    return undefined;
  if (formula === undefined || step === undefined || depth === undefined) return undefined;
  return {
    id,
    tier,
    family,
    unit,
    formula,
    step,
    signals,
    depth,
    thresholds,
    tierWhen,
    source,
    applicability: { requires, excludes },
    ...(prevention ? { prevention } : {}),
    ...(r.lineOf(node) !== undefined ? { line: r.lineOf(node)! } : {}),
  };
}

function checkTag(r: YamlReader, tag: string, tags: ReadonlyMap<string, string>, node: YamlNode, field: string): void {
  if (tag.startsWith(SIGNAL_TAG_PREFIX)) {
    const s = tag.slice(SIGNAL_TAG_PREFIX.length);
    if (!isSignalName(s)) r.fail(node, field, `unknown signal tag '${tag}'`);
  } else if (!tags.has(tag)) {
    const hint = closestMatch(tag, tags.keys());
    r.fail(node, field, `unknown tag '${tag}'${hint ? ` (did you mean '${hint}'?)` : ''}; declare it under 'tags'`);
  }
}

function readVariant(
  r: YamlReader,
  id: string,
  node: YamlNode,
  clauses: readonly ClauseDef[],
): SensitivityVariant | undefined {
  const field = `sensitivity.${id}`;
  const e = r.map(node, field, ['description', 'tiers']);
  if (!e) return undefined;
  const description = r.string(r.required(e, 'description', node, field), `${field}.description`);
  const tiersNode = r.required(e, 'tiers', node, field);
  const tiers = new Map<string, string>();
  for (const [clauseId, { key, value }] of (tiersNode === undefined ? undefined : r.map(tiersNode, `${field}.tiers`)) ??
    []) {
    const clause = clauses.find((c) => c.id === clauseId);
    const tierName = r.string(value, `${field}.tiers.${clauseId}`);
    if (!clause) {
      r.fail(key, `${field}.tiers.${clauseId}`, `unknown clause '${clauseId}'`);
    } else if (tierName !== undefined && !clause.thresholds.has(tierName)) {
      r.fail(
        value,
        `${field}.tiers.${clauseId}`,
        `clause '${clauseId}' has no tier '${tierName}' (tiers: ${[...clause.thresholds.keys()].join(', ')})`,
      );
    } else if (tierName !== undefined) {
      tiers.set(clauseId, tierName);
    }
  }
  if (description === undefined) return undefined;
  return { id, description, tiers };
}
