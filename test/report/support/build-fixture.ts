/**
 * Constructed episodes for report tests: real MCAP episode files written with EpisodeRecorder (and
 * one JSONL trace file), each from a small declarative spec the tests recount by hand.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodeRecorder, NodeFileWritable, appendIndexEntry, INDEX_FILE_NAME } from '../../../src/episode/index.js';
import type { ManualVerdict } from '../../../src/episode/types.js';
import { SignalFrame, signalIndex } from '../../../src/schema/signals.js';
import { ManualClock, ManualTimers } from '../../../src/util/index.js';

export const T0 = 1_764_400_000;
export const DT = 0.05;
export const STEPS = 40;

/** A value held on steps [from, from + len) (len omitted: to the end). */
export interface Excursion {
  readonly value: number;
  readonly from: number;
  readonly len?: number;
}

export interface EpisodeSpec {
  readonly id: string;
  readonly policy: string;
  readonly robot: string;
  readonly task: 'libero-spatial-pick-bowl' | 'libero-goal-task-5-push-plate';
  readonly success: boolean;
  readonly force?: Excursion;
  readonly disp?: Excursion;
  readonly torque?: Excursion;
  readonly manual?: Record<string, ManualVerdict>;
  /** Gate: hold entered at step `from`, released at `from + len` (len omitted: never). */
  readonly hold?: { from: number; len?: number };
  /** Modifications of filtered chunks, and how many chunks went through unchanged. */
  readonly filtered?: readonly number[];
  readonly executed?: number;
  /** Written as a JSONL trace file instead of MCAP. */
  readonly jsonl?: boolean;
  /** The run's gate mode in the episode's start record. */
  readonly gateMode?: 'on' | 'off';
  /** Ended without a success/failure label. */
  readonly unlabelled?: boolean;
  /** Platform in the start record (default 'sim'). */
  readonly platform?: string;
}

/** Safe baseline of every sim-platform signal. */
export const BASELINE: Readonly<Record<string, number>> = {
  arm_furniture_contact_force: 0.2,
  target_furniture_contact_force: 0,
  contact_force_max: 5,
  non_target_disp_max: 0,
  target_obj_tilt_world_deg: 0,
  obj_above_table: 0,
  gripper_contact: 0,
  max_joint_torque: 20,
  self_collision_clearance: 0.05,
  ee_speed: 0.2,
  ee_acc: 1,
  ee_jerk: 10,
  target_obj_speed: 0,
  release_speed: 0,
  arm_no_furniture_contact: 1,
};

const inside = (e: Excursion | undefined, k: number) =>
  e !== undefined && k >= e.from && (e.len === undefined || k < e.from + e.len);

export function valuesAt(spec: EpisodeSpec, k: number): Record<string, number> {
  const v = { ...BASELINE };
  if (inside(spec.force, k)) v['contact_force_max'] = spec.force!.value;
  if (inside(spec.disp, k)) v['non_target_disp_max'] = spec.disp!.value;
  if (inside(spec.torque, k)) v['max_joint_torque'] = spec.torque!.value;
  return v;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

async function writeMcap(dir: string, spec: EpisodeSpec): Promise<void> {
  const file = `${spec.id}.mcap`;
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const recorder = EpisodeRecorder.start(
    await NodeFileWritable.create(join(dir, file)),
    {
      episodeId: spec.id,
      robotId: spec.robot,
      platform: spec.platform ?? 'sim',
      task: spec.task,
      policy: spec.policy,
      ...(spec.gateMode ? { gateMode: spec.gateMode } : {}),
      startedAt: '2026-11-29T15:00:00.000Z',
      t0: T0,
      clauses: [],
    },
    { timers, file },
  );
  const chunks = [
    ...(spec.filtered ?? []).map((m) => ({ verdict: 'filtered' as const, m })),
    ...Array.from({ length: spec.executed ?? 0 }, () => ({ verdict: 'executed' as const, m: 0 })),
  ];
  for (let k = 0; k < STEPS; k++) {
    const t = T0 + k * DT;
    const f = new SignalFrame();
    f.t = t;
    for (const [name, value] of Object.entries(valuesAt(spec, k))) f.set(signalIndex(name)!, value, t, 'fixture');
    recorder.frame(f);
    if (spec.hold && k === spec.hold.from) recorder.gateTransition(t, 'armed', 'hold', 'fixture hold');
    if (spec.hold && spec.hold.len !== undefined && k === spec.hold.from + spec.hold.len)
      recorder.gateTransition(t, 'hold', 'armed', 'released');
    const c = chunks[k];
    if (c) {
      const chunk = { id: `c${k}`, stamp: t, horizon: 1, joints: 2, dt: DT, targets: new Float64Array([0, 0]) };
      recorder.proposedChunk(t, chunk);
      recorder.executedChunk(t, chunk, `c${k}`, c.verdict, c.m);
    }
  }
  if (!spec.unlabelled)
    recorder.label({
      success: spec.success,
      ...(spec.manual ? { manual: spec.manual } : {}),
      t: T0 + STEPS * DT,
      source: 'operator',
    });
  const entry = await recorder.end(T0 + STEPS * DT, 'done');
  await appendIndexEntry(join(dir, INDEX_FILE_NAME), entry);
}

function writeJsonl(dir: string, spec: EpisodeSpec): void {
  const names = Object.keys(BASELINE);
  const header = {
    format: 'armguard-trace/1',
    episode: spec.id,
    success: spec.success,
    platform: 'sim',
    task: spec.task,
    policy: spec.policy,
    templates: [],
    objects: [],
    manual: spec.manual ?? {},
    columns: ['t', ...names],
  };
  const lines = [JSON.stringify(header)];
  for (let k = 0; k < STEPS; k++) {
    const v = valuesAt(spec, k);
    lines.push(JSON.stringify([T0 + k * DT, ...names.map((n) => v[n])]));
  }
  writeFileSync(join(dir, `${spec.id}.jsonl`), `${lines.join('\n')}\n`);
}

export async function writeEpisodes(dir: string, specs: readonly EpisodeSpec[]): Promise<void> {
  for (const s of specs) {
    if (s.jsonl) writeJsonl(dir, s);
    else await writeMcap(dir, s);
  }
}

/** Table 33 pilot episodes (seeds/000 G.1): video labels only, no per-step signals. */
export async function writePilotEpisode(
  dir: string,
  file: string,
  o: { id: string; task: string; success: boolean; manual: Record<string, ManualVerdict> },
): Promise<void> {
  const clock = new ManualClock(0);
  const recorder = EpisodeRecorder.start(
    await NodeFileWritable.create(join(dir, file)),
    {
      episodeId: o.id,
      robotId: 'so101-pilot',
      platform: 'so101',
      task: o.task,
      policy: 'smolvla',
      startedAt: '2026-05-01T10:00:00.000Z',
      t0: T0,
      signals: [],
      clauses: [],
    },
    { timers: new ManualTimers(clock), file },
  );
  recorder.label({ success: o.success, manual: o.manual, t: T0 + 30, source: 'operator', by: 'video-review' });
  await recorder.end(T0 + 30, 'done');
}
