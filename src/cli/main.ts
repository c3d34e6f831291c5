import { EXIT, type CliIo } from './command.js';
import { commands } from './commands/index.js';
import { packageVersion } from '../platform/package-files.js';

const consoleIo: CliIo = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
};

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `armguard — real-time STL safety monitor and gate for robot arms running VLA policies

usage: armguard <command> [options]

commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run 'armguard <command> --help' for a command's options and examples.`;
}

export async function main(argv: readonly string[], io: CliIo = consoleIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version') {
    io.out(`armguard ${packageVersion()}`);
    return EXIT.ok;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.err(`armguard: unknown command '${name}'\n\n${usage()}`);
    return EXIT.usage;
  }
  try {
    const command = await entry.load();
    if (rest.includes('--help') || rest.includes('-h')) {
      io.out(command.help);
      return EXIT.ok;
    }
    return await command.run(rest, io);
  } catch (e) {
    io.err(`armguard ${name}: ${(e as Error).message}`);
    return EXIT.failure;
  }
}
