import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDir } from './paths.js';

/**
 * shared/data/franka-panda-good-confs/GOOD_CONFS_1010.txt: 1,010 real Panda configurations (7 joint
 * angles in rad per line, tab-separated) from Gaz et al., RA-L 2019 (see the folder's README).
 * A line with other than 7 finite numbers is an error naming the line.
 */
export const PANDA_GOOD_CONFS_PATH = join(sharedDir, 'data', 'franka-panda-good-confs', 'GOOD_CONFS_1010.txt');

export function readPandaGoodConfs(path = PANDA_GOOD_CONFS_PATH): number[][] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: number[][] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const q = line.trim().split(/\s+/).map(Number);
    if (q.length !== 7 || !q.every(Number.isFinite))
      throw new Error(`${path}:${i + 1}: expected 7 joint angles (rad), got '${line}'`);
    out.push(q);
  });
  return out;
}
