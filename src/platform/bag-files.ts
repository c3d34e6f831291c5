/**
 * A rosbag2 bag given as a file or as a bag directory: the MCAP files to read, in recording order
 * (src/mcap/bag-files.ts decides which from metadata.yaml or the file names; this reads the directory).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { filesFromRosbag2Metadata, mcapSplitsInOrder } from '../mcap/bag-files.js';
import { InputError } from '../util/index.js';

export async function bagFiles(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const metadataPath = join(path, 'metadata.yaml');
  let text: string | undefined;
  try {
    text = await readFile(metadataPath, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text !== undefined) return filesFromRosbag2Metadata(text, metadataPath).map((f) => join(path, f));
  const names = mcapSplitsInOrder(await readdir(path));
  if (names.length === 0)
    throw new InputError({ file: path }, 'no metadata.yaml and no .mcap files: not a rosbag2 bag directory');
  return names.map((n) => join(path, n));
}
