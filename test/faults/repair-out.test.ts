/**
 * Issue 14 item 6: `repair X --out X` truncated the recording to 0 bytes and `--out` onto another
 * episode overwrote it. Repair now never opens an existing file for writing: an output that
 * exists, or is the input under another name (relative path, symlink, hard link), is refused
 * with the file unchanged; the repaired bytes go to a temporary file that is linked into place.
 */
import { linkSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { NodeFileWritable } from '../../src/episode/index.js';
import { captureIo } from '../support/cli-io.js';
import { newRecorder, recordSteps } from '../episode/support/episode-fixture.js';

async function episode(dir: string, name: string, steps: number): Promise<string> {
  const path = join(dir, name);
  const { recorder } = newRecorder(await NodeFileWritable.create(path), { chunkSize: 8_000 });
  recordSteps(recorder, 0, steps);
  await recorder.flush(); // left unfinished (no summary), as a killed recorder leaves it
  return path;
}

describe('repair never destroys a recording', () => {
  it('refuses --out naming the input (same path, another spelling, a symlink, a hard link) and leaves it byte-identical', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-fault-out-'));
    const input = await episode(dir, 'ep.mcap', 400);
    const original = readFileSync(input);
    expect(original.byteLength).toBeGreaterThan(10_000);
    symlinkSync(input, join(dir, 'alias.mcap'));
    linkSync(input, join(dir, 'hard.mcap'));
    const spellings = [
      input,
      join(dir, '.', 'sub', '..', 'ep.mcap'),
      relative(process.cwd(), input),
      join(dir, 'alias.mcap'),
      join(dir, 'hard.mcap'),
    ];
    for (const out of spellings) {
      const { io, err } = captureIo();
      expect(await main(['repair', input, '--out', out], io)).toBe(1);
      expect(err.join('\n')).toMatch(/is the input file itself/);
      expect(readFileSync(input).equals(original)).toBe(true);
    }
    expect(readdirSync(dir).sort()).toEqual(['alias.mcap', 'ep.mcap', 'hard.mcap']); // no temporary file left
  });

  it('refuses --out onto another existing episode and leaves that episode untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-fault-out-'));
    const input = await episode(dir, 'a.mcap', 300);
    const other = await episode(dir, 'b.mcap', 500);
    const otherBytes = readFileSync(other);
    const { io, err } = captureIo();
    expect(await main(['repair', input, '--out', other], io)).toBe(1);
    expect(err.join('\n')).toMatch(/b\.mcap.*already exists; repair never overwrites a file/);
    expect(readFileSync(other).equals(otherBytes)).toBe(true);
  });

  it('a new --out path and an in-place repair still work, leaving only the result (and .bak)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-fault-out-'));
    const input = await episode(dir, 'ep.mcap', 300);
    const original = readFileSync(input);
    expect(await main(['repair', input, '--out', join(dir, 'fixed.mcap')], captureIo().io)).toBe(0);
    expect(await main(['repair', input], captureIo().io)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['ep.mcap', 'ep.mcap.bak', 'fixed.mcap']);
    expect(readFileSync(join(dir, 'ep.mcap.bak')).equals(original)).toBe(true);
    expect(readFileSync(input).equals(readFileSync(join(dir, 'fixed.mcap')))).toBe(true);
  });
});
