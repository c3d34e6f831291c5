/**
 * The MQTT users file given to `armguard run --access <yaml>`:
 *
 *   users:
 *     - { username: armguard, password: "…", roles: [armguard] }
 *     - { username: alice, password: "…", roles: [operator] }
 *     - { username: vla, password: "…", roles: [policy] }
 *   anonymous_telemetry: false
 *
 * armguard connects to its own broker as the first user with the `armguard` role.
 */
import { YamlReader } from '../../calibration/yaml-reader.js';
import type { AccessConfig, MqttUser, Role } from '../../telemetry/access.js';
import type { InputError } from '../../util/errors.js';

const ROLES: readonly Role[] = ['armguard', 'operator', 'policy', 'viewer'];

export function parseAccessFile(text: string, file: string): { ok: true; value: AccessConfig } | { ok: false; problems: InputError[] } {
  const r = new YamlReader(file, text);
  if (!r.ok) return { ok: false, problems: r.problems };
  r.noExtraKeys([], ['users', 'anonymous_telemetry']);
  const users: MqttUser[] = [];
  const n = r.length(['users']);
  if (n === 0 && r.ok) r.problem(['users'], 'expected a list of users ({username, password, roles})');
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    r.noExtraKeys(['users', i], ['username', 'password', 'roles']);
    const username = r.string(['users', i, 'username']);
    const password = r.string(['users', i, 'password']);
    if (password.length > 0 && password.length < 8) r.problem(['users', i, 'password'], 'expected at least 8 characters');
    if (seen.has(username)) r.problem(['users', i, 'username'], `user '${username}' is listed twice`);
    seen.add(username);
    const roles: Role[] = [];
    const rn = r.length(['users', i, 'roles']);
    if (rn === 0) r.problem(['users', i, 'roles'], `expected a list of roles (${ROLES.join(', ')})`);
    for (let k = 0; k < rn; k++) roles.push(r.string(['users', i, 'roles', k], { oneOf: ROLES }) as Role);
    users.push({ username, password, roles });
  }
  const anon = r.raw(['anonymous_telemetry']);
  if (anon !== undefined && typeof anon !== 'boolean') r.problem(['anonymous_telemetry'], 'expected true or false');
  if (r.ok && !users.some((u) => u.roles.includes('armguard'))) r.problem(['users'], "expected one user with the 'armguard' role (armguard's own connection)");
  if (!r.ok) return { ok: false, problems: r.problems };
  return { ok: true, value: { users, anonymousTelemetry: anon === true } };
}

/** armguard's own credentials: the first user with the armguard role. */
export function armguardUser(access: AccessConfig): MqttUser | undefined {
  return access.users.find((u) => u.roles.includes('armguard'));
}
