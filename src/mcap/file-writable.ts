/**
 * The one place MCAP bytes go: a file (src/platform/file-writable.ts), memory (tests, benchmarks)
 * or anything else with these three calls. The MCAP code never opens a file itself.
 */
import type { IWritable } from '@mcap/core';

/**
 * Where the bytes go. `write` calls never overlap; `sync` makes written bytes durable. A `write`
 * that rejects must leave the writable where it was before it, so writing the same bytes again
 * (after the cause, e.g. a full disk, is gone) continues the file correctly.
 */
export interface FileWritable {
  write(bytes: Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** @mcap/core's McapWriter view of a FileWritable: it also asks for the byte position. */
export function mcapWritable(out: FileWritable): IWritable {
  let position = 0n;
  return {
    async write(bytes: Uint8Array): Promise<unknown> {
      await out.write(bytes);
      position += BigInt(bytes.byteLength);
      return undefined;
    },
    position: () => position,
  };
}
