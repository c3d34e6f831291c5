/**
 * `armguard access init|add-user`: writes the access file of `armguard run --access` with scrypt
 * password hashes, mode 0600, replaced atomically. Passwords are read from stdin (a terminal
 * does not echo them), never taken from the command line.
 */
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import { readAccessFile, writeAccessFile } from '../compose/access-file.js';
import type { MqttUser, Role } from '../../telemetry/access.js';
import { hashPassword } from '../../telemetry/password-hash.js';

const ROLES: readonly Role[] = ['operator', 'policy', 'viewer', 'armguard'];

const HELP = `usage: armguard access init <access.yaml> [--anonymous-telemetry]
       armguard access add-user <access.yaml> <username> --roles <role,…> [--replace]

Writes the MQTT users file that 'armguard run --access' takes. Passwords are stored as scrypt hashes;
the file is written with mode 0600 (readable by its owner only) and replaced atomically.

  init        create a new access file with no users (refuses an existing file)
  add-user    add a user (or with --replace, change an existing user's password and roles); the
              password is read from stdin: typed (not echoed) on a terminal, or piped
  --roles     operator (release, e-stop reset, labels, dead-man heartbeat), policy (chunk requests),
              viewer (telemetry only); every authenticated user may send an e-stop
  --anonymous-telemetry   (init) clients without credentials may read telemetry (never command)

examples:
  armguard access init access.yaml
  armguard access add-user access.yaml alice --roles operator
  printf '%s\\n' "$VLA_PASSWORD" | armguard access add-user access.yaml vla --roles policy`;

export interface AccessCommandDeps {
  /** Read one password (without echo on a terminal); undefined when none was given. */
  readPassword(prompt: string, io: CliIo): Promise<string | undefined>;
}

export function makeAccessCommand(deps: AccessCommandDeps): Command {
  return {
    name: 'access',
    help: HELP,
    async run(args, io) {
      const p = parseArgs(args, { strings: ['roles'], booleans: ['anonymous-telemetry', 'replace'] });
      const fail = (msg: string, code: number = EXIT.usage) => (io.err(`armguard access: ${msg}`), code);
      if (!p.ok) return fail(p.error);
      const [verb, file, username, ...extra] = p.positionals;
      if (verb === 'init') {
        if (!file || username !== undefined) return fail('usage: armguard access init <access.yaml>');
        try {
          await writeAccessFile(
            file,
            { users: [], anonymousTelemetry: p.options.get('anonymous-telemetry') === true },
            true,
          );
        } catch (e) {
          return fail((e as Error).message, EXIT.failure);
        }
        io.out(`wrote ${file} (mode 0600, no users yet: armguard access add-user ${file} <name> --roles …)`);
        return EXIT.ok;
      }
      if (verb !== 'add-user')
        return fail(
          verb === undefined ? 'give init or add-user (see --help)' : `unknown action '${verb}' (init, add-user)`,
        );
      if (!file || !username || extra.length > 0)
        return fail('usage: armguard access add-user <access.yaml> <username> --roles <role,…>');
      if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(username) || username.startsWith('armguard-internal-'))
        return fail(`username '${username}': use 1–64 letters, digits, '_', '.', '@' or '-'`);
      const rolesArg = p.options.get('roles');
      if (typeof rolesArg !== 'string') return fail(`--roles is required (${ROLES.join(', ')})`);
      const roles = rolesArg.split(',').map((r) => r.trim());
      const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
      if (unknown.length > 0 || roles.length === 0)
        return fail(`--roles: unknown role '${unknown[0] ?? ''}' (expected ${ROLES.join(', ')})`);
      const current = await readAccessFile(file);
      if (!current.ok) {
        for (const e of current.problems) io.err(`armguard access: ${e}`);
        return EXIT.failure;
      }
      const existing = current.value.users.findIndex((u) => u.username === username);
      if (existing >= 0 && p.options.get('replace') !== true)
        return fail(`user '${username}' exists in ${file} (--replace to change it)`, EXIT.failure);
      const password = await deps.readPassword(`password for ${username}: `, io);
      if (password === undefined || password.length < 8)
        return fail('the password must have at least 8 characters (read from stdin)', EXIT.failure);
      const user: MqttUser = { username, passwordHash: await hashPassword(password), roles: roles as Role[] };
      const users = [...current.value.users];
      if (existing >= 0) users[existing] = user;
      else users.push(user);
      try {
        await writeAccessFile(file, { ...current.value, users }, false);
      } catch (e) {
        return fail(`${file}: cannot write: ${(e as Error).message}`, EXIT.failure);
      }
      const plain = users.filter((u) => u.password !== undefined).map((u) => u.username);
      io.out(`${existing >= 0 ? 'replaced' : 'added'} ${username} (${roles.join(', ')}) in ${file} (mode 0600)`);
      if (plain.length > 0)
        io.err(
          `armguard access: ${file} still holds plaintext passwords for ${plain.join(', ')}: re-add them with --replace`,
        );
      return EXIT.ok;
    },
  };
}

/** One line from stdin; on a terminal in raw mode without echo. */
export function readPasswordFromStdin(prompt: string, io: CliIo): Promise<string | undefined> {
  const input = process.stdin;
  return new Promise((resolve) => {
    let text = '';
    const tty = input.isTTY === true;
    if (tty) {
      io.err(prompt);
      input.setRawMode(true);
    }
    const finish = (value: string | undefined) => {
      input.off('data', onData);
      input.off('end', onEnd);
      if (tty) input.setRawMode(false);
      input.pause();
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\n' || ch === '\r') return finish(text);
        if (ch === '\u0003' || ch === '\u0004') return finish(undefined);
        if (ch === '\u007f') text = text.slice(0, -1);
        else text += ch;
      }
    };
    const onEnd = () => finish(text.length > 0 ? text : undefined);
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
  });
}

export const accessCommand: Command = makeAccessCommand({ readPassword: readPasswordFromStdin });
