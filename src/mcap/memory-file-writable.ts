import { concatBytes } from '../util/bytes.js';
import type { FileWritable } from './file-writable.js';

/** An in-memory FileWritable (tests, benchmarks): `bytes()` is everything written so far. */
export class MemoryFileWritable implements FileWritable {
  private parts: Uint8Array[] = [];
  private length = 0;
  syncs = 0;
  closed = false;
  async write(bytes: Uint8Array): Promise<void> {
    this.parts.push(bytes.slice());
    this.length += bytes.byteLength;
  }
  async sync(): Promise<void> {
    this.syncs++;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  get size(): number {
    return this.length;
  }
  bytes(): Uint8Array {
    const out = concatBytes(this.parts);
    this.parts = [out];
    return out;
  }
}
