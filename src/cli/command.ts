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

/** Parse `--flag value`, `--flag=value` and boolean `--flag` options; the rest are positionals. */
export function parseArgs(
  args: readonly string[],
  spec: { strings?: readonly string[]; booleans?: readonly string[] },
): { ok: true; options: Map<string, string | true>; positionals: string[] } | { ok: false; error: string } {
  const strings = new Set(spec.strings ?? []);
  const booleans = new Set(spec.booleans ?? []);
  const options = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') || a === '-') {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (booleans.has(name)) {
      if (eq >= 0) return { ok: false, error: `option --${name} takes no value` };
      options.set(name, true);
    } else if (strings.has(name)) {
      const value = eq >= 0 ? a.slice(eq + 1) : args[++i];
      if (value === undefined) return { ok: false, error: `option --${name} needs a value` };
      // `--out --ros-only` is a missing value, not a file named '--ros-only' (write --out=--x for that)
      if (eq < 0 && value.startsWith('--')) return { ok: false, error: `option --${name} needs a value (got option ${value})` };
      options.set(name, value);
    } else {
      const known = [...strings, ...booleans].map((s) => `--${s}`).join(', ');
      return { ok: false, error: `unknown option --${name}${known ? ` (known: ${known})` : ''}` };
    }
  }
  return { ok: true, options, positionals };
}
