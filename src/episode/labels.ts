/**
 * Labels (design §8): appended records, never rewrites of raw data. `labelRecordFrom` validates a
 * label from an untrusted transport (terminal prompt, MQTT, ROS 2 service, task predicate);
 * `effectiveLabel` folds a history (later records win per field, manual verdicts per clause).
 */
import { InputError } from '../util/index.js';
import {
  MANUAL_VERDICTS,
  type EffectiveLabel,
  type LabelInput,
  type LabelRecord,
  type LabelSource,
  type ManualVerdict,
} from './types.js';

const SOURCES: readonly LabelSource[] = ['operator', 'mqtt', 'ros2', 'predicate', 'import', 'api'];
const KEYS = new Set([
  't',
  'wallTime',
  'source',
  'by',
  'success',
  'taskId',
  'policy',
  'taskTags',
  'objectTags',
  'manual',
  'note',
]);

function fail(field: string, reason: string, file?: string): never {
  throw new InputError(file === undefined ? { field } : { file, field }, reason);
}

function optString(o: Record<string, unknown>, key: string, file?: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') fail(key, `expected a string, got ${JSON.stringify(v)}`, file);
  return v;
}

function optTags(o: Record<string, unknown>, key: string, file?: string): string[] | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === ''))
    fail(key, 'expected a list of non-empty strings', file);
  return [...(v as string[])];
}

/**
 * Validate a label (from any transport) and stamp it. Throws InputError naming the field.
 * `defaultT` is used when the label carries no time.
 */
export function labelRecordFrom(
  input: LabelInput | Record<string, unknown>,
  defaultT: number,
  file?: string,
): LabelRecord {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('(label)', 'expected an object', file);
  const o = input as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.has(k)) fail(k, `unknown label field (known: ${[...KEYS].join(', ')})`, file);
  const t = o['t'] === undefined ? defaultT : o['t'];
  if (typeof t !== 'number' || !Number.isFinite(t)) fail('t', 'expected a finite time in seconds', file);
  const source = o['source'] === undefined ? 'api' : o['source'];
  if (typeof source !== 'string' || !(SOURCES as readonly string[]).includes(source))
    fail('source', `expected one of ${SOURCES.join(', ')}`, file);
  const record: LabelRecord = { t, source: source as LabelSource };
  if (o['wallTime'] !== undefined) {
    if (typeof o['wallTime'] !== 'number' || !Number.isFinite(o['wallTime']))
      fail('wallTime', 'expected a finite Unix time in seconds', file);
    record.wallTime = o['wallTime'];
  }
  const by = optString(o, 'by', file);
  if (by !== undefined) record.by = by;
  if (o['success'] !== undefined) {
    if (typeof o['success'] !== 'boolean') fail('success', 'expected true or false', file);
    record.success = o['success'];
  }
  const taskId = optString(o, 'taskId', file);
  if (taskId !== undefined) record.taskId = taskId;
  const policy = optString(o, 'policy', file);
  if (policy !== undefined) record.policy = policy;
  const taskTags = optTags(o, 'taskTags', file);
  if (taskTags !== undefined) record.taskTags = taskTags;
  const objectTags = optTags(o, 'objectTags', file);
  if (objectTags !== undefined) record.objectTags = objectTags;
  if (o['manual'] !== undefined) {
    const m = o['manual'];
    if (typeof m !== 'object' || m === null || Array.isArray(m)) fail('manual', 'expected {clauseId: verdict}', file);
    const manual: Record<string, ManualVerdict> = {};
    for (const [clause, verdict] of Object.entries(m as Record<string, unknown>)) {
      if (!(MANUAL_VERDICTS as readonly unknown[]).includes(verdict))
        fail(`manual.${clause}`, `expected one of ${MANUAL_VERDICTS.join(', ')}`, file);
      manual[clause] = verdict as ManualVerdict;
    }
    record.manual = manual;
  }
  const note = optString(o, 'note', file);
  if (note !== undefined) record.note = note;
  return record;
}

/** Fold a label history in order: later records win per field; manual verdicts merge per clause. */
export function effectiveLabel(history: readonly LabelRecord[]): EffectiveLabel {
  const e: EffectiveLabel = { taskTags: [], objectTags: [], manual: {} };
  for (const r of history) {
    if (r.success !== undefined) e.success = r.success;
    if (r.taskId !== undefined) e.taskId = r.taskId;
    if (r.policy !== undefined) e.policy = r.policy;
    if (r.taskTags !== undefined) e.taskTags = [...r.taskTags];
    if (r.objectTags !== undefined) e.objectTags = [...r.objectTags];
    if (r.manual !== undefined) Object.assign(e.manual, r.manual);
    if (r.note !== undefined) e.note = r.note;
    e.labeledAt = r.t;
  }
  return e;
}
