/** A rosbag2 bag file written on disk (src/mcap/writer.ts's Rosbag2Writer over a file). */
import { basename } from 'node:path';
import { Rosbag2Writer } from '../mcap/writer.js';
import { NodeFileWritable } from './file-writable.js';
import { packageVersion } from './package-files.js';

export const ARMGUARD_MCAP_LIBRARY = `armguard ${packageVersion()} (@mcap/core)`;

/** Write a bag file at `path` (replacing one there) with `fill`, closing the file whatever happens. */
export async function writeBagFile(
  path: string,
  fill: (writer: Rosbag2Writer) => Promise<void>,
  options: { rosDistro?: string; chunkSize?: number } = {},
): Promise<void> {
  const out = await NodeFileWritable.create(path, { overwrite: true });
  try {
    const writer = await Rosbag2Writer.create(out, {
      ...options,
      library: ARMGUARD_MCAP_LIBRARY,
      relativePath: basename(path),
    });
    await fill(writer);
    await writer.close();
    await out.sync();
  } finally {
    await out.close();
  }
}
