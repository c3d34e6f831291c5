import type { CliIo } from '../../src/cli/command.js';

/** A CLI io that records what a command prints: `io` to pass, `out`/`err` the lines. */
export function captureIo(): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t) }, out, err };
}
