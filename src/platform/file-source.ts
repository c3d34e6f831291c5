import { createReadStream } from 'node:fs';

/** Read a file as a byte stream (64 KiB pieces), never all at once: a `ByteSource` of src/mcap. */
export function fileSource(path: string): AsyncIterable<Uint8Array> {
  return createReadStream(path, { highWaterMark: 64 * 1024 });
}
