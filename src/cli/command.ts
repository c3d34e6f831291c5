import { parseArgs as tokenizeArgs } from 'node:util';

/** A CLI subcommand. `run` returns the process exit code; output goes through `io`. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export interface Command {
  name: string;
  /** Full help: usage, options and at least one example. */
  help: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/** A row of the command table (commands/index.ts): enough for `--help` without loading the command. */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const MASK = '\u0000arg:';

/**
 * Parse `--flag value`, `--flag=value` and boolean `--flag` options; the rest are positionals.
 * node:util's parseArgs splits the arguments into tokens; the rules on them are armguard's: an
 * unknown `--option` is an error naming it and the known ones, a string option needs a value that is
 * not itself an option (`--out --ros-only`; write `--out=--x` for a value starting with `--`), a
 * boolean takes none, and single-dash words (`-0.5`, `-x`) are positionals or option values. The
 * last occurrence of an option wins.
 */
export function parseArgs(
  args: readonly string[],
  spec: { strings?: readonly string[]; booleans?: readonly string[] },
): { ok: true; options: Map<string, string | true>; positionals: string[] } | { ok: false; error: string } {
  const strings = spec.strings ?? [];
  const booleans = spec.booleans ?? [];
  // Single-dash words (`-0.5`, `-x`) are positionals or values here, never short options: they
  // reach the tokenizer masked (argv cannot contain NUL) and come back as they were.
  const masked = args.map((a, i) => (a.length > 1 && a.startsWith('-') && !a.startsWith('--') ? `${MASK}${i}` : a));
  const unmask = (v: string): string => (v.startsWith(MASK) ? (args[Number(v.slice(MASK.length))] ?? v) : v);
  const { tokens } = tokenizeArgs({
    args: masked,
    options: Object.fromEntries([
      ...strings.map((name) => [name, { type: 'string' as const }]),
      ...booleans.map((name) => [name, { type: 'boolean' as const }]),
    ]),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const options = new Map<string, string | true>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(unmask(token.value));
      continue;
    }
    if (token.kind === 'option-terminator') continue;
    const name = token.name;
    if (booleans.includes(name)) {
      if (token.value !== undefined) return { ok: false, error: `option --${name} takes no value` };
      options.set(name, true);
    } else if (strings.includes(name)) {
      const value = token.value === undefined ? undefined : unmask(token.value);
      if (value === undefined) return { ok: false, error: `option --${name} needs a value` };
      if (!token.inlineValue && value.startsWith('--'))
        return { ok: false, error: `option --${name} needs a value (got option ${value})` };
      options.set(name, value);
    } else {
      const known = [...strings, ...booleans].map((s) => `--${s}`).join(', ');
      return { ok: false, error: `unknown option --${name}${known ? ` (known: ${known})` : ''}` };
    }
  }
  return { ok: true, options, positionals };
}
