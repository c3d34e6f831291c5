/** The file-backed EpisodeWritable: sequential writes, fsync on `sync()`. */
import { open, type FileHandle } from 'node:fs/promises';
import type { EpisodeWritable } from './mcap-stream-writer.js';

export class FileEpisodeWritable implements EpisodeWritable {
  private constructor(
    private readonly handle: FileHandle,
    readonly path: string,
  ) {}

  /** Create `path`; refuses to overwrite an existing episode file. */
  static async create(path: string): Promise<FileEpisodeWritable> {
    return new FileEpisodeWritable(await open(path, 'wx'), path);
  }

  async write(bytes: Uint8Array): Promise<void> {
    let done = 0;
    while (done < bytes.byteLength) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.byteLength - done);
      done += bytesWritten;
    }
  }
  sync(): Promise<void> {
    return this.handle.sync();
  }
  close(): Promise<void> {
    return this.handle.close();
  }
}
