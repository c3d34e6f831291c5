import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseEstop, parseHeartbeat, parseLabel, parseRelease } from '../../src/telemetry/payloads.js';
import { parseTopic, topicFor } from '../../src/telemetry/topics.js';
import { AccessPolicy, mosquittoAcl } from '../../src/telemetry/access.js';

describe('MQTT payload validation', () => {
  it('accepts well-formed commands', () => {
    expect(parseEstop('{"v":1,"reason":"hand in workspace"}')).toEqual({
      ok: true,
      value: { v: 1, reason: 'hand in workspace' },
    });
    expect(parseRelease('{"v":1}')).toEqual({ ok: true, value: { v: 1 } });
    expect(parseLabel('{"v":1,"success":true,"manualViolations":["non_target_max_disp"]}')).toEqual({
      ok: true,
      value: { v: 1, success: true, manualViolations: ['non_target_max_disp'] },
    });
    expect(parseHeartbeat('{"v":1,"seq":7}')).toEqual({ ok: true, value: { v: 1, seq: 7 } });
  });
  it.each([
    ['not JSON', () => parseRelease('{'), /not JSON/],
    ['wrong version', () => parseRelease('{"v":2}'), /field 'v': expected 1, got 2/],
    ['an array', () => parseEstop('[1]'), /JSON object/],
    ['an unknown field', () => parseRelease('{"v":1,"force":true}'), /unknown field 'force'/],
    ['success not boolean', () => parseLabel('{"v":1,"success":"yes"}'), /field 'success'/],
    ['bad clause names', () => parseLabel('{"v":1,"manualViolations":["DROP TABLE"]}'), /manualViolations/],
    ['an empty label', () => parseLabel('{"v":1}'), /at least one/],
    ['a negative heartbeat', () => parseHeartbeat('{"v":1,"seq":-1}'), /field 'seq'/],
  ])('refuses %s naming the problem', (_n, run, msg) => {
    const r = run();
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(msg);
  });
  it('never throws on arbitrary bytes or JSON values (fuzz)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.json().map((s) => new TextEncoder().encode(s)),
          fc
            .jsonValue()
            .map((v) =>
              new TextEncoder().encode(
                JSON.stringify({ v: 1, ...(typeof v === 'object' && v && !Array.isArray(v) ? v : { x: v }) }),
              ),
            ),
        ),
        (bytes) => {
          for (const parse of [parseEstop, parseRelease, parseLabel, parseHeartbeat]) {
            const r = parse(bytes);
            expect(typeof r.ok).toBe('boolean');
            if (!r.ok) expect(r.error.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('MQTT topics and access', () => {
  it('round-trips topics of the tree', () => {
    expect(parseTopic(topicFor('so101-a', 'cmd/release'))).toEqual({ robot: 'so101-a', kind: 'cmd/release' });
    for (const kind of [
      'margins',
      'margins/history',
      'gate',
      'events',
      'episode',
      'labels',
      'chunk/result',
      'cmd/estop',
      'cmd/estop-reset',
      'cmd/release',
      'cmd/label',
      'cmd/heartbeat',
      'chunk/request',
    ] as const)
      expect(parseTopic(`armguard/v1/r-1/${kind}`)).toEqual({ robot: 'r-1', kind });
    expect(parseTopic('armguard/v1/x/cmd')).toBeUndefined();
    expect(parseTopic('armguard/v1/x/chunk/result/more')).toBeUndefined();
    expect(parseTopic('armguard/v1/x/unknown')).toBeUndefined();
    expect(parseTopic('armguard/v1/bad robot/gate')).toBeUndefined();
  });
  const policy = new AccessPolicy({
    users: [
      { username: 'op', password: 'pw-op', roles: ['operator'] },
      { username: 'view', password: 'pw-view', roles: ['viewer'] },
      { username: 'vla', password: 'pw-vla', roles: ['policy'] },
      { username: 'ag', password: 'pw-ag', roles: ['armguard'] },
    ],
  });
  it('authenticates by password and refuses anonymous clients unless configured', async () => {
    expect(await policy.authenticate('op', 'pw-op')).toEqual(['operator']);
    expect(await policy.authenticate('op', 'wrong')).toBeUndefined();
    expect(await policy.authenticate('nobody', 'pw-op')).toBeUndefined();
    expect(await policy.authenticate(undefined, undefined)).toBeUndefined();
    expect(await new AccessPolicy({ users: [], anonymousTelemetry: true }).authenticate(undefined, undefined)).toEqual(
      [],
    );
  });
  it("$SYS (which names every connecting client id) is armguard's alone to read; other topics are open to any role", () => {
    const anonymous = new AccessPolicy({ users: [], anonymousTelemetry: true });
    for (const [roles, user] of [
      [['viewer'], 'view'],
      [['policy'], 'vla'],
      [['operator'], 'op'],
    ] as const) {
      expect(policy.canSubscribe(roles, user, '$SYS/#')).toMatchObject({ allow: false });
      expect(policy.canSubscribe(roles, user, '$SYS/abc/new/clients')).toMatchObject({ allow: false });
      expect(policy.canSubscribe(roles, user, topicFor('arm1', 'gate'))).toEqual({ allow: true });
    }
    expect(anonymous.canSubscribe([], undefined, '$SYS/+/new/clients')).toMatchObject({ allow: false });
    expect(anonymous.canSubscribe([], undefined, '#')).toEqual({ allow: true });
    expect(policy.canSubscribe(['armguard'], 'ag', '$SYS/#')).toEqual({ allow: true });
  });
  it('release, label and the dead-man heartbeat need the operator role; e-stop any authenticated user; chunks the policy role', () => {
    const t = (k: Parameters<typeof topicFor>[1]) => topicFor('arm1', k);
    expect(policy.canPublish(['viewer'], 'view', t('cmd/estop'))).toEqual({ allow: true });
    for (const anonymous of [undefined, ''])
      expect(policy.canPublish([], anonymous, t('cmd/estop'))).toEqual({
        allow: false,
        reason: 'cmd/estop from an anonymous client: credentials required',
      });
    expect(policy.canPublish(['viewer'], 'view', t('cmd/release'))).toEqual({
      allow: false,
      reason: "cmd/release from user 'view': needs the operator role",
    });
    expect(policy.canPublish(['operator'], 'op', t('cmd/release'))).toEqual({ allow: true });
    expect(policy.canPublish(['viewer'], 'view', t('cmd/heartbeat'))).toMatchObject({ allow: false });
    expect(policy.canPublish(['policy'], 'vla', t('cmd/heartbeat'))).toMatchObject({ allow: false });
    expect(policy.canPublish(['operator'], 'op', t('cmd/heartbeat'))).toEqual({ allow: true });
    // the generated Mosquitto ACL grants the same
    const acl = mosquittoAcl({
      users: [
        { username: 'view', password: 'pw-view-123', roles: ['viewer'] },
        { username: 'op', password: 'pw-op-1234', roles: ['operator'] },
      ],
      anonymousTelemetry: false,
    });
    const block = (user: string) => acl.split('\n\n').find((b) => b.startsWith(`user ${user}`)) ?? '';
    expect(block('view')).not.toContain('cmd/heartbeat');
    expect(block('view')).toContain('topic write armguard/v1/+/cmd/estop');
    expect(block('op')).toContain('topic write armguard/v1/+/cmd/heartbeat');
    expect(policy.canPublish(['operator'], 'op', t('chunk/request'))).toMatchObject({ allow: false });
    expect(policy.canPublish(['policy'], 'vla', t('chunk/request'))).toEqual({ allow: true });
    expect(policy.canPublish(['operator'], 'op', t('gate'))).toMatchObject({
      allow: false,
      reason: 'only armguard publishes gate',
    });
    expect(policy.canPublish(['armguard'], 'ag', t('gate'))).toEqual({ allow: true });
  });
});
