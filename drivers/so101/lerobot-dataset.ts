/**
 * Read a LeRobot v3.0 dataset (meta/info.json and the data/chunk-NNN/file-NNN.parquet files, via hyparquet):
 * per-episode timestamps, observation.state and action (6 values each, in the recording's
 * normalisation), and the task text from meta/episodes.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { SO101_JOINT_NAMES } from '../../src/kinematics/so101.js';
import { InputError } from '../../src/util/errors.js';
import { err, ok, type Result } from '../../src/util/result.js';

export interface LeRobotInfo {
  codebase_version: string;
  robot_type: string;
  total_episodes: number;
  total_frames: number;
  fps: number;
  stateNames: string[];
}

export interface LeRobotEpisode {
  index: number;
  task: string | undefined;
  /** Seconds from the episode start (the dataset's `timestamp`). */
  times: Float64Array;
  /** frames × 6, row-major. */
  state: Float64Array;
  action: Float64Array | undefined;
  /** Length recorded in meta/episodes, when present. */
  declaredLength: number | undefined;
}

export interface LeRobotDataset {
  dir: string;
  info: LeRobotInfo;
  episodes: LeRobotEpisode[];
}

async function parquetFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let chunks: string[];
  try {
    chunks = (await readdir(dir)).filter((c) => /^chunk-\d+$/.test(c)).sort();
  } catch {
    return out;
  }
  for (const c of chunks) {
    for (const f of (await readdir(join(dir, c))).filter((n) => n.endsWith('.parquet')).sort())
      out.push(join(dir, c, f));
  }
  return out;
}

/** The SO-101 follower's feature names (LeRobot `<motor>.pos`), in the order the mapping reads them. */
export const SO101_STATE_NAMES: readonly string[] = SO101_JOINT_NAMES.map((j) => `${j}.pos`);

function jointNamesProblem(names: unknown): string | undefined {
  const expected = SO101_STATE_NAMES;
  if (Array.isArray(names) && names.length === expected.length && names.every((n, i) => n === expected[i]))
    return undefined;
  return `expected the SO-101 joint names in order [${expected.join(', ')}], got ${JSON.stringify(names)}`;
}

async function readParquet(file: string, columns: string[]): Promise<Result<Record<string, unknown>[], InputError>> {
  try {
    return ok(
      (await parquetReadObjects({ file: await asyncBufferFromFile(file), columns })) as Record<string, unknown>[],
    );
  } catch (e) {
    return err(new InputError({ file }, `cannot read parquet file: ${(e as Error).message}`));
  }
}

export async function readLeRobotDataset(dir: string): Promise<Result<LeRobotDataset, InputError>> {
  const infoPath = join(dir, 'meta/info.json');
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(await readFile(infoPath, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    return err(
      new InputError({ file: infoPath }, `not a LeRobot dataset (cannot read meta/info.json: ${(e as Error).message})`),
    );
  }
  const features = raw.features as Record<string, { names?: unknown; shape?: unknown }> | undefined;
  const stateNames = features?.['observation.state']?.names;
  const badState = jointNamesProblem(stateNames);
  if (badState) return err(new InputError({ file: infoPath, field: 'features.observation.state.names' }, badState));
  const actionNames = features?.action?.names;
  const badAction = actionNames === undefined ? undefined : jointNamesProblem(actionNames);
  if (badAction) return err(new InputError({ file: infoPath, field: 'features.action.names' }, badAction));
  const info: LeRobotInfo = {
    codebase_version: String(raw.codebase_version ?? ''),
    robot_type: String(raw.robot_type ?? ''),
    total_episodes: Number(raw.total_episodes),
    total_frames: Number(raw.total_frames),
    fps: Number(raw.fps),
    stateNames: [...SO101_STATE_NAMES],
  };
  if (!info.codebase_version.startsWith('v3')) {
    return err(
      new InputError(
        { file: infoPath, field: 'codebase_version' },
        `expected a LeRobot v3 dataset, got '${info.codebase_version}'`,
      ),
    );
  }
  const tasks = new Map<number, { task: string | undefined; length: number | undefined }>();
  for (const f of await parquetFiles(join(dir, 'meta/episodes'))) {
    const rows = await readParquet(f, ['episode_index', 'tasks', 'length']);
    if (!rows.ok) return rows;
    for (const r of rows.value as { episode_index: bigint | number; tasks?: unknown; length?: bigint | number }[]) {
      const t = Array.isArray(r.tasks) ? r.tasks.map(String).join('; ') : undefined;
      tasks.set(Number(r.episode_index), { task: t, length: r.length === undefined ? undefined : Number(r.length) });
    }
  }
  const files = await parquetFiles(join(dir, 'data'));
  if (files.length === 0)
    return err(new InputError({ file: join(dir, 'data') }, 'no data/chunk-NNN/file-NNN.parquet files'));
  const rowsByEpisode = new Map<
    number,
    { t: number; frame: number; state: number[]; action: number[] | undefined }[]
  >();
  for (const f of files) {
    const hasAction = features?.action !== undefined;
    const columns = [
      'timestamp',
      'episode_index',
      'frame_index',
      'observation.state',
      ...(hasAction ? ['action'] : []),
    ];
    const rows = await readParquet(f, columns);
    if (!rows.ok) return rows;
    for (const [i, r] of rows.value.entries()) {
      const state = r['observation.state'];
      if (!Array.isArray(state) || state.length !== 6)
        return err(new InputError({ file: f, line: i + 1, field: 'observation.state' }, 'expected 6 values'));
      const ep = Number(r.episode_index as bigint);
      const list = rowsByEpisode.get(ep) ?? [];
      list.push({
        t: Number(r.timestamp),
        frame: Number(r.frame_index as bigint),
        state: state.map(Number),
        action: Array.isArray(r.action) ? r.action.map(Number) : undefined,
      });
      rowsByEpisode.set(ep, list);
    }
  }
  const episodes: LeRobotEpisode[] = [...rowsByEpisode.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, rows]) => {
      rows.sort((a, b) => a.frame - b.frame);
      const n = rows.length;
      const state = new Float64Array(n * 6);
      const action = rows.every((r) => r.action?.length === 6) ? new Float64Array(n * 6) : undefined;
      rows.forEach((r, i) => {
        state.set(r.state, i * 6);
        if (action && r.action) action.set(r.action, i * 6);
      });
      const meta = tasks.get(index);
      return {
        index,
        task: meta?.task,
        times: Float64Array.from(rows, (r) => r.t),
        state,
        action,
        declaredLength: meta?.length,
      };
    });
  return ok({ dir, info, episodes });
}
