/**
 * A rosbag2 bag given as a file or as a bag directory (metadata.yaml + split files): the MCAP files
 * to read, in recording order. `relative_file_paths` of metadata.yaml wins; without it, the
 * directory's `.mcap` files sorted by name (rosbag2 names splits `<bag>_0.mcap`, `<bag>_1.mcap`, …).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InputError } from '../../../src/util/index.js';

function splitIndex(name: string): number {
  const m = /_(\d+)\.mcap$/.exec(name);
  return m ? Number(m[1]) : -1;
}

export async function bagFiles(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const metadataPath = join(path, 'metadata.yaml');
  let text: string | undefined;
  try {
    text = await readFile(metadataPath, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text !== undefined) {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (e) {
      throw new InputError({ file: metadataPath }, `invalid YAML: ${(e as Error).message}`);
    }
    const info = (doc as { rosbag2_bagfile_information?: { relative_file_paths?: unknown; storage_identifier?: unknown } } | null)?.rosbag2_bagfile_information;
    if (!info) throw new InputError({ file: metadataPath, field: 'rosbag2_bagfile_information' }, 'missing: not a rosbag2 metadata file');
    if (info.storage_identifier !== undefined && info.storage_identifier !== 'mcap') {
      throw new InputError({ file: metadataPath, field: 'rosbag2_bagfile_information.storage_identifier' }, `'${String(info.storage_identifier)}' bags are not supported (only mcap)`);
    }
    const files = info.relative_file_paths;
    if (!Array.isArray(files) || files.some((f) => typeof f !== 'string')) {
      throw new InputError({ file: metadataPath, field: 'rosbag2_bagfile_information.relative_file_paths' }, 'expected a list of file names');
    }
    return (files as string[]).map((f) => join(path, f));
  }
  const names = (await readdir(path)).filter((n) => n.endsWith('.mcap'));
  if (names.length === 0) throw new InputError({ file: path }, 'no metadata.yaml and no .mcap files: not a rosbag2 bag directory');
  names.sort((a, b) => splitIndex(a) - splitIndex(b) || a.localeCompare(b));
  return names.map((n) => join(path, n));
}
