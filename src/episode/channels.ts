/**
 * armguard's own channels in an episode file: topic, record kind and JSON Schema (draft 2020-12;
 * MCAP schema encoding `jsonschema`, message encoding `json`, so Foxglove shows and plots them).
 */
import type { EpisodeRecordKind } from './types.js';

export type JsonKind = Exclude<EpisodeRecordKind, 'ros'>;

const num = { type: 'number' } as const;
const numOrNull = { type: ['number', 'null'] } as const;
const str = { type: 'string' } as const;
const strArray = { type: 'array', items: str } as const;

const obj = (name: string, properties: Record<string, unknown>, required: string[]) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: name,
  type: 'object',
  properties,
  required,
});

const chunkProps = {
  t: num,
  id: str,
  stamp: num,
  horizon: { type: 'integer' },
  joints: { type: 'integer' },
  dt: num,
  targets: { type: 'array', items: num },
};

export const JSON_CHANNELS: Readonly<Record<JsonKind, { topic: string; schemaName: string; schema: object }>> = {
  frame: {
    topic: '/armguard/signals',
    schemaName: 'armguard.SignalFrame',
    schema: obj(
      'armguard.SignalFrame',
      {
        t: num,
        values: { type: 'array', items: numOrNull },
        stamps: { type: 'array', items: numOrNull },
        validity: { type: 'array', items: { enum: [0, 1, 2] } },
        sources: strArray,
      },
      ['t', 'values', 'stamps', 'validity'],
    ),
  },
  robustness: {
    topic: '/armguard/robustness',
    schemaName: 'armguard.ClauseRobustness',
    schema: obj('armguard.ClauseRobustness', { t: num, rho: { type: 'array', items: numOrNull } }, ['t', 'rho']),
  },
  gate: {
    topic: '/armguard/gate',
    schemaName: 'armguard.GateRecord',
    schema: obj(
      'armguard.GateRecord',
      {
        t: num,
        kind: { enum: ['transition', 'event', 'fault'] },
        from: str,
        to: str,
        reason: str,
        event: str,
        detail: str,
        fault: { type: 'object', properties: { kind: str, source: str }, required: ['kind', 'source'] },
      },
      ['t', 'kind'],
    ),
  },
  'proposed-chunk': {
    topic: '/armguard/chunks/proposed',
    schemaName: 'armguard.ProposedChunk',
    schema: obj('armguard.ProposedChunk', chunkProps, ['t', 'id', 'stamp', 'horizon', 'joints', 'dt', 'targets']),
  },
  'executed-chunk': {
    topic: '/armguard/chunks/executed',
    schemaName: 'armguard.ExecutedChunk',
    schema: obj(
      'armguard.ExecutedChunk',
      {
        ...chunkProps,
        proposedId: str,
        verdict: { enum: ['executed', 'filtered', 'held'] },
        modification: num,
      },
      ['t', 'id', 'stamp', 'horizon', 'joints', 'dt', 'targets', 'proposedId', 'verdict', 'modification'],
    ),
  },
  raw: {
    topic: '/armguard/raw',
    schemaName: 'armguard.RawInput',
    schema: obj('armguard.RawInput', { t: num, source: str, payload: {} }, ['t', 'source', 'payload']),
  },
  label: {
    topic: '/armguard/labels',
    schemaName: 'armguard.Label',
    schema: obj(
      'armguard.Label',
      {
        t: num,
        wallTime: num,
        source: { enum: ['operator', 'mqtt', 'ros2', 'predicate', 'import', 'api'] },
        by: str,
        success: { type: 'boolean' },
        taskId: str,
        policy: str,
        taskTags: strArray,
        objectTags: strArray,
        manual: { type: 'object', additionalProperties: { enum: ['violated', 'satisfied', 'not_applicable'] } },
        note: str,
      },
      ['t', 'source'],
    ),
  },
  versions: {
    topic: '/armguard/versions',
    schemaName: 'armguard.Versions',
    schema: obj('armguard.Versions', { t: num, versions: { type: 'object', additionalProperties: str } }, [
      't',
      'versions',
    ]),
  },
  semantic: {
    topic: '/armguard/semantic',
    schemaName: 'armguard.SemanticRecord',
    schema: obj(
      'armguard.SemanticRecord',
      {
        t: num,
        kind: { enum: ['task', 'query', 'verdict', 'fault', 'late-answer', 'decision', 'stage', 'stages', 'frame'] },
      },
      ['t', 'kind'],
    ),
  },
  end: {
    topic: '/armguard/episode_end',
    schemaName: 'armguard.EpisodeEnd',
    schema: obj('armguard.EpisodeEnd', { t: num, reason: str }, ['t', 'reason']),
  },
};

export const KIND_BY_TOPIC: ReadonlyMap<string, JsonKind> = new Map(
  (Object.entries(JSON_CHANNELS) as [JsonKind, { topic: string }][]).map(([kind, c]) => [c.topic, kind]),
);

/** Name of the MCAP metadata record holding EpisodeStart (as JSON under key `episode`). */
export const EPISODE_METADATA_NAME = 'armguard.episode';
export const MCAP_PROFILE = 'ros2';
