/**
 * Who may do what on the MQTT interface. The embedded broker enforces these rules itself; for an
 * external broker the same rules are written as a Mosquitto ACL (hardware.md "MQTT security").
 * Pure: no broker, no sockets.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { verifyPassword } from './password-hash.js';
import { INBOUND_KINDS, parseTopic, requiredRole, type InboundKind } from './topics.js';

export type Role = 'armguard' | 'operator' | 'policy' | 'viewer';

/** A user: exactly one of `passwordHash` (scrypt, what access files hold) or `password` (plaintext: tests, legacy files kept private). */
export interface MqttUser {
  username: string;
  password?: string;
  passwordHash?: string;
  roles: readonly Role[];
}

export interface AccessConfig {
  users: readonly MqttUser[];
  /** Clients without credentials may connect and read telemetry (never command). Default false. */
  anonymousTelemetry?: boolean;
}

export type Decision = { allow: true } | { allow: false; reason: string };
/** The one allowing decision (asked once per publish: not a new object each time). */
const ALLOW: Decision = Object.freeze({ allow: true });

const digest = (s: string) => createHash('sha256').update(s).digest();

export class AccessPolicy {
  constructor(readonly config: AccessConfig) {}

  /**
   * The user's roles, or undefined when the credentials are wrong. Anonymous → []. A hashed
   * password is checked off the calling thread (scrypt on the thread pool).
   */
  async authenticate(username: string | undefined, password: string | undefined): Promise<readonly Role[] | undefined> {
    if (username === undefined || username === '') return this.config.anonymousTelemetry ? [] : undefined;
    const user = this.config.users.find((u) => u.username === username);
    if (user?.passwordHash !== undefined)
      return (await verifyPassword(password ?? '', user.passwordHash)) ? user.roles : undefined;
    const given = digest(password ?? '');
    const expected = digest(user?.password ?? '\u0000no-such-user');
    const match = timingSafeEqual(given, expected);
    return user && user.password !== undefined && match ? user.roles : undefined;
  }

  canPublish(roles: readonly Role[], username: string | undefined, topic: string): Decision {
    if (topic.startsWith('$SYS')) return { allow: false, reason: '$SYS topics are reserved' };
    const parsed = parseTopic(topic);
    if (!parsed)
      return roles.includes('armguard')
        ? { allow: true }
        : { allow: false, reason: `topic ${topic} is outside the armguard tree` };
    const kind = parsed.kind;
    const inbound = (INBOUND_KINDS as readonly string[]).includes(kind);
    if (!inbound) {
      return roles.includes('armguard') ? { allow: true } : { allow: false, reason: `only armguard publishes ${kind}` };
    }
    const need = requiredRole(kind as InboundKind);
    if (username === undefined || username === '')
      return { allow: false, reason: `${kind} from an anonymous client: credentials required` };
    if (need === 'any' || roles.includes(need)) return ALLOW;
    return { allow: false, reason: `${kind} from user '${username}': needs the ${need} role` };
  }

  canSubscribe(roles: readonly Role[], username: string | undefined, topic: string): Decision {
    // the broker's own topics name every client that connects (its client id): armguard's alone
    if (topic.startsWith('$SYS') && !roles.includes('armguard'))
      return { allow: false, reason: '$SYS topics are reserved (they name every connecting client)' };
    if (username === undefined || username === '') {
      return this.config.anonymousTelemetry ? { allow: true } : { allow: false, reason: 'telemetry needs credentials' };
    }
    return roles.length > 0 ? { allow: true } : { allow: false, reason: `user '${username}' has no role` };
  }
}

/** A Mosquitto ACL file equivalent to the policy (for an external broker). */
export function mosquittoAcl(config: AccessConfig): string {
  const lines = [
    '# armguard ACL (mosquittoAcl in src/telemetry/access.ts); use with password_file and allow_anonymous false',
    '',
  ];
  if (config.anonymousTelemetry) lines.push('topic read armguard/v1/#', '');
  for (const u of config.users) {
    lines.push(`user ${u.username}`);
    lines.push('topic read armguard/v1/#');
    if (u.roles.includes('armguard'))
      lines.push(
        'topic write armguard/v1/+/margins',
        'topic write armguard/v1/+/margins/history',
        'topic write armguard/v1/+/gate',
        'topic write armguard/v1/+/events',
        'topic write armguard/v1/+/episode',
        'topic write armguard/v1/+/labels',
        'topic write armguard/v1/+/chunk/result',
      );
    lines.push('topic write armguard/v1/+/cmd/estop');
    if (u.roles.includes('operator'))
      lines.push(
        'topic write armguard/v1/+/cmd/estop-reset',
        'topic write armguard/v1/+/cmd/release',
        'topic write armguard/v1/+/cmd/label',
        'topic write armguard/v1/+/cmd/heartbeat',
      );
    if (u.roles.includes('policy')) lines.push('topic write armguard/v1/+/chunk/request');
    lines.push('');
  }
  return lines.join('\n');
}
