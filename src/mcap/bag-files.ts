/**
 * Which MCAP files make up a rosbag2 bag directory (metadata.yaml + split files), in recording
 * order. `relative_file_paths` of metadata.yaml wins; without it, the directory's `.mcap` files
 * sorted by split index (rosbag2 names splits `<bag>_0.mcap`, `<bag>_1.mcap`, …). Pure: the
 * directory is read by src/platform/bag-files.ts.
 */
import { parse as parseYaml } from 'yaml';
import { InputError } from '../util/index.js';

function splitIndex(name: string): number {
  const m = /_(\d+)\.mcap$/.exec(name);
  return m ? Number(m[1]) : -1;
}

/** The file names (relative to the bag directory) a metadata.yaml lists; errors name `metadataPath`. */
export function filesFromRosbag2Metadata(text: string, metadataPath: string): string[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new InputError({ file: metadataPath }, `invalid YAML: ${(e as Error).message}`);
  }
  const info = (
    doc as { rosbag2_bagfile_information?: { relative_file_paths?: unknown; storage_identifier?: unknown } } | null
  )?.rosbag2_bagfile_information;
  if (!info)
    throw new InputError(
      { file: metadataPath, field: 'rosbag2_bagfile_information' },
      'missing: not a rosbag2 metadata file',
    );
  if (info.storage_identifier !== undefined && info.storage_identifier !== 'mcap') {
    throw new InputError(
      { file: metadataPath, field: 'rosbag2_bagfile_information.storage_identifier' },
      `'${String(info.storage_identifier)}' bags are not supported (only mcap)`,
    );
  }
  const files = info.relative_file_paths;
  if (!Array.isArray(files) || files.some((f) => typeof f !== 'string')) {
    throw new InputError(
      { file: metadataPath, field: 'rosbag2_bagfile_information.relative_file_paths' },
      'expected a list of file names',
    );
  }
  return files as string[];
}

/** The `.mcap` names of a directory listing in recording order (split index, then name). */
export function mcapSplitsInOrder(names: readonly string[]): string[] {
  return names.filter((n) => n.endsWith('.mcap')).sort((a, b) => splitIndex(a) - splitIndex(b) || a.localeCompare(b));
}
