/**
 * The MQTT users file given to `armguard run --access <yaml>`, written by `armguard access init`
 * and `armguard access add-user` (mode 0600):
 *
 *   users:
 *     - { username: alice, password_hash: "scrypt$32768$8$1$…$…", roles: [operator] }
 *     - { username: vla, password_hash: "scrypt$…", roles: [policy] }
 *   anonymous_telemetry: false
 *
 * A plaintext `password:` is still read (older files, tests) but only from a file no group or
 * other user can read. armguard's own connection to the embedded broker does not come from this
 * file (the broker makes per-process credentials).
 */
import { open, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { YamlReader } from '../../schema/yaml-reader.js';
import type { AccessConfig, MqttUser, Role } from '../../telemetry/access.js';
import { parsePasswordHash } from '../../telemetry/password-hash.js';
import type { InputError } from '../../util/errors.js';

const ROLES: readonly Role[] = ['armguard', 'operator', 'policy', 'viewer'];

export function parseAccessFile(
  text: string,
  file: string,
): { ok: true; value: AccessConfig } | { ok: false; problems: InputError[] } {
  const r = new YamlReader(file, text, { syntaxColumns: false });
  if (!r.ok) return { ok: false, problems: r.errors };
  r.noExtraKeysAt([], ['users', 'anonymous_telemetry']);
  const users: MqttUser[] = [];
  const rawUsers = r.rawAt(['users']);
  if (!Array.isArray(rawUsers) && r.ok)
    r.problemAt(
      ['users'],
      "expected a list of users ({username, password_hash, roles}; 'armguard access add-user' writes them)",
    );
  const n = Array.isArray(rawUsers) ? r.lengthAt(['users']) : 0;
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    r.noExtraKeysAt(['users', i], ['username', 'password', 'password_hash', 'roles']);
    const username = r.stringAt(['users', i, 'username']);
    const hasHash = r.rawAt(['users', i, 'password_hash']) !== undefined;
    const hasPlain = r.rawAt(['users', i, 'password']) !== undefined;
    let secret: { password: string } | { passwordHash: string } | undefined;
    if (hasHash === hasPlain) {
      r.problemAt(['users', i], "expected exactly one of password_hash (from 'armguard access add-user') or password");
    } else if (hasHash) {
      const passwordHash = r.stringAt(['users', i, 'password_hash']);
      const h = parsePasswordHash(passwordHash);
      if (!h.ok) r.problemAt(['users', i, 'password_hash'], h.error);
      secret = { passwordHash };
    } else {
      const password = r.stringAt(['users', i, 'password']);
      if (password.length > 0 && password.length < 8)
        r.problemAt(['users', i, 'password'], 'expected at least 8 characters');
      secret = { password };
    }
    if (seen.has(username)) r.problemAt(['users', i, 'username'], `user '${username}' is listed twice`);
    seen.add(username);
    const roles: Role[] = [];
    const rn = r.lengthAt(['users', i, 'roles']);
    if (rn === 0) r.problemAt(['users', i, 'roles'], `expected a list of roles (${ROLES.join(', ')})`);
    for (let k = 0; k < rn; k++) roles.push(r.stringAt(['users', i, 'roles', k], { oneOf: ROLES }) as Role);
    users.push({ username, ...secret, roles });
  }
  const anon = r.rawAt(['anonymous_telemetry']);
  if (anon !== undefined && typeof anon !== 'boolean') r.problemAt(['anonymous_telemetry'], 'expected true or false');
  if (!r.ok) return { ok: false, problems: r.errors };
  return { ok: true, value: { users, anonymousTelemetry: anon === true } };
}

/**
 * Read and parse an access file, refusing one that holds a plaintext password while its group or
 * other users can read it (anyone on the machine could drive the arm with it).
 */
export async function readAccessFile(
  path: string,
): Promise<{ ok: true; value: AccessConfig } | { ok: false; problems: string[] }> {
  let text: string;
  let mode: number;
  try {
    mode = (await stat(path)).mode;
    const f = await open(path, 'r');
    try {
      text = await f.readFile('utf8');
    } finally {
      await f.close();
    }
  } catch (e) {
    return { ok: false, problems: [`${path}: cannot read: ${(e as Error).message}`] };
  }
  const parsed = parseAccessFile(text, path);
  if (!parsed.ok) return { ok: false, problems: parsed.problems.map((p) => p.message) };
  const plain = parsed.value.users.filter((u) => u.password !== undefined).map((u) => u.username);
  if (plain.length > 0 && (mode & 0o077) !== 0) {
    return {
      ok: false,
      problems: [
        `${path}: holds plaintext passwords (${plain.join(', ')}) and is readable by ${(mode & 0o070) !== 0 ? 'its group' : ''}${(mode & 0o070) !== 0 && (mode & 0o007) !== 0 ? ' and ' : ''}${(mode & 0o007) !== 0 ? 'other users' : ''} (mode ${(mode & 0o777).toString(8)}): ` +
          `re-create the users with 'armguard access add-user' (scrypt hashes), or at least chmod 600 ${path}`,
      ],
    };
  }
  return parsed;
}

/** The YAML text of an access file (strings JSON-quoted, which YAML reads as double-quoted scalars). */
export function formatAccessFile(config: AccessConfig): string {
  const q = (s: string) => JSON.stringify(s);
  const lines = [
    "# armguard access file: MQTT users and roles (written by 'armguard access'; keep it mode 0600)",
    'users:',
  ];
  if (config.users.length === 0) lines[1] = 'users: []';
  for (const u of config.users) {
    const secret =
      u.passwordHash !== undefined ? `password_hash: ${q(u.passwordHash)}` : `password: ${q(u.password ?? '')}`;
    lines.push(`  - { username: ${q(u.username)}, ${secret}, roles: [${u.roles.join(', ')}] }`);
  }
  lines.push(`anonymous_telemetry: ${config.anonymousTelemetry === true}`, '');
  return lines.join('\n');
}

/**
 * Write an access file with mode 0600: to a temporary file in the same directory, then renamed
 * over `path` (never a half-written file). `exclusive` refuses an existing `path`.
 */
export async function writeAccessFile(path: string, config: AccessConfig, exclusive: boolean): Promise<void> {
  if (exclusive) {
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (exists) throw new Error(`${path} exists (add users with 'armguard access add-user ${path} …')`);
  }
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const f = await open(tmp, 'wx', 0o600);
  try {
    await f.writeFile(formatAccessFile(config));
    await f.sync();
  } finally {
    await f.close();
  }
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
