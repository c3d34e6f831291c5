/**
 * Episodes in a folder: `<dir>/<episodeId>.mcap` per episode and the index `<dir>/episodes.jsonl`,
 * appended when an episode ends. What the runtime uses to record a pilot.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../util/index.js';
import { INDEX_FILE_NAME, appendIndexEntry } from './episode-index.js';
import { NodeFileWritable } from '../platform/file-writable.js';
import { EpisodeRecorder, type EpisodeStartInput, type RecorderOptions } from './recorder.js';
import type { EpisodeIndexEntry } from './types.js';
import type { EpisodeCoverage } from '../schema/clause-coverage.js';

export interface EpisodeInDir {
  recorder: EpisodeRecorder;
  path: string;
  /** End the episode and append its line to the folder's index. */
  /** `coverage`: where each clause was evaluated (the monitor bank's count), recorded in the end record and the index. */
  finish(t: number, reason: string, coverage?: EpisodeCoverage): Promise<EpisodeIndexEntry>;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Start recording episode `start.episodeId` into `dir` (created if needed; never overwrites). */
export async function startEpisodeInDir(
  dir: string,
  start: EpisodeStartInput,
  options: Omit<RecorderOptions, 'file'>,
): Promise<EpisodeInDir> {
  if (!SAFE_ID.test(start.episodeId)) {
    throw new InputError(
      { field: 'episodeId' },
      `'${start.episodeId}' cannot name a file: use letters, digits, '.', '_' or '-' (at most 128)`,
    );
  }
  await mkdir(dir, { recursive: true });
  const name = `${start.episodeId}.mcap`;
  const path = join(dir, name);
  let writable: NodeFileWritable;
  try {
    writable = await NodeFileWritable.create(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new InputError({ file: path, field: 'episodeId' }, 'an episode with this id is already recorded here');
    throw e;
  }
  const recorder = EpisodeRecorder.start(writable, start, { ...options, file: name });
  return {
    recorder,
    path,
    finish: async (t, reason, coverage) => {
      const entry = await recorder.end(t, reason, coverage);
      await appendIndexEntry(join(dir, INDEX_FILE_NAME), entry);
      return entry;
    },
  };
}
