/**
 * The file-backed FileWritable: sequential writes at an explicit position, fsync on `sync()`.
 * The position moves only once a whole buffer is written, so a write that failed part-way (ENOSPC)
 * is redone from its start when retried, over whatever part of it reached the file.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { FileWritable } from '../mcap/file-writable.js';

export class NodeFileWritable implements FileWritable {
  private constructor(
    private readonly handle: FileHandle,
    readonly path: string,
  ) {}

  /**
   * Create `path`; refuses to overwrite an existing file (episodes, repairs) unless `overwrite`
   * (a standalone bag written on request).
   */
  static async create(path: string, options: { overwrite?: boolean } = {}): Promise<NodeFileWritable> {
    return new NodeFileWritable(await open(path, options.overwrite === true ? 'w' : 'wx'), path);
  }

  private position = 0;

  async write(bytes: Uint8Array): Promise<void> {
    let done = 0;
    while (done < bytes.byteLength) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.byteLength - done, this.position + done);
      done += bytesWritten;
    }
    this.position += done;
  }
  sync(): Promise<void> {
    return this.handle.sync();
  }
  close(): Promise<void> {
    return this.handle.close();
  }
}
