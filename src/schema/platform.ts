/**
 * Platform profiles (design §2, §5): which schema signals a platform declares (the registry's signal
 * tags) and its recalibrated thresholds. Parsed from spec/platforms.yaml text; pure.
 */
import type { InputError } from '../util/index.js';
import { type Result, err, ok } from '../util/index.js';
import { SIGNALS, isSignalName, type SignalName } from './signals.js';
import { YamlReader, type YamlNode } from './yaml-reader.js';

export interface TierNumbers {
  readonly tau: number;
  /** VSI severe anchor s; absent for binary and report-only clauses. */
  readonly severe?: number;
  /** Warning band ε (seeds/002 §IV-A) in the clause's unit. */
  readonly warn?: number;
}

/** A platform's recalibration of one clause: replaces that clause's tiers on this platform. */
export interface ThresholdOverride {
  readonly clause: string;
  readonly tiers: ReadonlyMap<string, TierNumbers>;
  readonly reason: string;
  readonly source: string;
  /** Where it was written, for cross-checks against the clause library. */
  readonly where: { readonly file: string; readonly line: number | undefined };
}

export interface PlatformProfile {
  readonly id: string;
  readonly description: string;
  /** Always exposed by this platform. */
  readonly signals: readonly SignalName[];
  /** Exposed only when the instance has the hardware (wrist F/T, external tracking, …). */
  readonly optionalSignals: readonly SignalName[];
  readonly thresholds: ReadonlyMap<string, ThresholdOverride>;
}

export type PlatformProfiles = ReadonlyMap<string, PlatformProfile>;

/** Signals a platform may declare: its base set plus those optional ones the instance enables. */
export function declaredSignals(profile: PlatformProfile, enabledOptional: Iterable<string> = []): Set<SignalName> {
  const out = new Set<SignalName>(profile.signals);
  for (const s of enabledOptional)
    if ((profile.optionalSignals as readonly string[]).includes(s)) out.add(s as SignalName);
  return out;
}

export function parsePlatformProfiles(text: string, file: string): Result<PlatformProfiles, InputError[]> {
  const r = new YamlReader(file, text);
  const out = new Map<string, PlatformProfile>();
  const top = r.root === undefined ? undefined : r.map(r.root, '(document)', ['kind', 'version', 'platforms']);
  if (top) {
    const kind = r.required(top, 'kind', r.root, '(document)');
    if (kind !== undefined && r.string(kind, 'kind') !== 'armguard/platforms')
      r.fail(kind, 'kind', "expected 'armguard/platforms'");
    const platforms = r.required(top, 'platforms', r.root, '(document)');
    const entries = platforms === undefined ? undefined : r.map(platforms, 'platforms');
    for (const [id, { value }] of entries ?? []) {
      const p = readProfile(r, id, value);
      if (p) out.set(id, p);
    }
  }
  return r.errors.length > 0 ? err(r.errors) : ok(out);
}

function readProfile(r: YamlReader, id: string, node: YamlNode): PlatformProfile | undefined {
  const field = `platforms.${id}`;
  const e = r.map(node, field, ['description', 'signals', 'optional_signals', 'thresholds']);
  if (!e) return undefined;
  const before = r.errors.length;
  const description = r.string(r.required(e, 'description', node, field), `${field}.description`) ?? '';
  const signals = readSignals(r, r.required(e, 'signals', node, field), `${field}.signals`);
  const optionalNode = e.get('optional_signals')?.value;
  const optionalSignals = optionalNode === undefined ? [] : readSignals(r, optionalNode, `${field}.optional_signals`);
  for (const s of optionalSignals) {
    if (signals.includes(s))
      r.fail(optionalNode, `${field}.optional_signals`, `signal '${s}' is listed both as always and as optional`);
  }
  const thresholds = new Map<string, ThresholdOverride>();
  const thrNode = e.get('thresholds')?.value;
  const thrEntries = thrNode === undefined ? undefined : r.map(thrNode, `${field}.thresholds`);
  for (const [clause, { value }] of thrEntries ?? []) {
    const o = readOverride(r, clause, value, `${field}.thresholds.${clause}`);
    if (o) thresholds.set(clause, o);
  }
  if (r.errors.length > before) return undefined;
  return { id, description, signals, optionalSignals, thresholds };
}

function readSignals(r: YamlReader, node: YamlNode, field: string): SignalName[] {
  const names = r.stringList(node, field) ?? [];
  const out: SignalName[] = [];
  for (const n of names) {
    if (isSignalName(n)) {
      if (out.includes(n)) r.fail(node, field, `signal '${n}' listed twice`);
      else out.push(n);
    } else {
      r.fail(node, field, `unknown signal '${n}'; the schema's signals are ${SIGNALS.map((s) => s.name).join(', ')}`);
    }
  }
  return out;
}

export function readTierNumbers(r: YamlReader, node: YamlNode, field: string): TierNumbers | undefined {
  const e = r.map(node, field, ['tau', 'severe', 'warn']);
  if (!e) return undefined;
  const tau = r.number(r.required(e, 'tau', node, field), `${field}.tau`);
  const severeNode = e.get('severe')?.value;
  const severe = severeNode === undefined ? undefined : r.number(severeNode, `${field}.severe`);
  const warnNode = e.get('warn')?.value;
  const warn = warnNode === undefined ? undefined : r.number(warnNode, `${field}.warn`, { positive: true });
  if (tau === undefined) return undefined;
  if (severe !== undefined && severe === tau) {
    return r.fail(
      severeNode,
      `${field}.severe`,
      `severe anchor equals tau (${tau}): the VSI scale |s - tau| would be 0`,
    );
  }
  return { tau, ...(severe !== undefined ? { severe } : {}), ...(warn !== undefined ? { warn } : {}) };
}

function readOverride(r: YamlReader, clause: string, node: YamlNode, field: string): ThresholdOverride | undefined {
  const e = r.map(node, field, ['tiers', 'reason', 'source']);
  if (!e) return undefined;
  const reason = r.string(r.required(e, 'reason', node, field), `${field}.reason`);
  const source = r.string(r.required(e, 'source', node, field), `${field}.source`);
  const tiersNode = r.required(e, 'tiers', node, field);
  const tierEntries = tiersNode === undefined ? undefined : r.map(tiersNode, `${field}.tiers`);
  const tiers = new Map<string, TierNumbers>();
  for (const [name, { value }] of tierEntries ?? []) {
    const t = readTierNumbers(r, value, `${field}.tiers.${name}`);
    if (t) tiers.set(name, t);
  }
  if (tierEntries && !tiers.has('main') && !tierEntries.has('main'))
    r.fail(tiersNode, `${field}.tiers`, "missing the 'main' tier");
  if (reason === undefined || source === undefined) return undefined;
  return { clause, tiers, reason, source, where: { file: r.file, line: r.lineOf(node) } };
}
