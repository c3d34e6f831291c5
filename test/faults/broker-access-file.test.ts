/**
 * Issue #14 item 16 / issue #20 item 4: access files hold scrypt hashes written by `armguard access
 * init|add-user` (mode 0600); a group/world-readable file with a plaintext password is refused;
 * the embedded broker authenticates against the hashes (real aedes, real MQTT clients); a broker
 * password in the --mqtt URL (visible in the process list) is refused.
 */
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeAccessCommand } from '../../src/cli/commands/access.js';
import { parseRunArgs } from '../../src/cli/commands/run.js';
import { readAccessFile } from '../../src/cli/compose/access-file.js';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { captureIo } from '../support/cli-io.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { repoRoot } from '../support/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'armguard-access-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function command(passwords: string[]) {
  return makeAccessCommand({ readPassword: async () => passwords.shift() });
}

describe('armguard access init|add-user', () => {
  it('writes a 0600 file with scrypt hashes that the embedded broker authenticates against', async () => {
    const file = join(dir, 'access.yaml');
    const io = captureIo();
    const cmd = command(['alice-secret', 'vla-secret-1']);
    expect(await cmd.run(['init', file], io.io)).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await cmd.run(['init', file], io.io)).toBe(1);
    expect(io.err.at(-1)).toMatch(/exists/);
    expect(await cmd.run(['add-user', file, 'alice', '--roles', 'operator'], io.io)).toBe(0);
    expect(await cmd.run(['add-user', file, 'vla', '--roles', 'policy'], io.io)).toBe(0);
    expect(await command(['x-password']).run(['add-user', file, 'alice', '--roles', 'viewer'], io.io)).toBe(1);
    expect(io.err.at(-1)).toMatch(/user 'alice' exists .*--replace/);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('alice-secret');
    expect(text).toMatch(/username: "alice", password_hash: "scrypt\$32768\$8\$1\$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const access = await readAccessFile(file);
    expect(access.ok).toBe(true);
    if (!access.ok) return;
    const broker = new EmbeddedBroker(access.value);
    const url = await broker.start();
    try {
      const alice = await RecordingClient.connect(url, 'alice', 'alice-secret');
      await alice.end();
      await expect(RecordingClient.connect(url, 'alice', 'vla-secret-1')).rejects.toThrow();
    } finally {
      await broker.stop();
    }
  });

  it('refuses a short password and an unknown role', async () => {
    const file = join(dir, 'a2.yaml');
    const io = captureIo();
    expect(await command([]).run(['init', file], io.io)).toBe(0);
    expect(await command(['short']).run(['add-user', file, 'bob', '--roles', 'operator'], io.io)).toBe(1);
    expect(io.err.at(-1)).toMatch(/at least 8 characters/);
    expect(await command(['long-enough']).run(['add-user', file, 'bob', '--roles', 'pilot'], io.io)).toBe(2);
    expect(io.err.at(-1)).toMatch(/unknown role 'pilot'/);
  });
});

describe('plaintext passwords and file modes', () => {
  const plain = 'users:\n  - { username: alice, password: "alice-secret", roles: [operator] }\n';

  it('a world- or group-readable access file with a plaintext password is refused, naming the users and the fix', async () => {
    const file = join(dir, 'plain.yaml');
    writeFileSync(file, plain);
    chmodSync(file, 0o644);
    const r = await readAccessFile(file);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems[0]).toMatch(
        /holds plaintext passwords \(alice\) and is readable by its group and other users \(mode 644\).*armguard access add-user.*chmod 600/,
      );
    chmodSync(file, 0o640);
    const g = await readAccessFile(file);
    expect(!g.ok && g.problems[0]).toMatch(/readable by its group \(mode 640\)/);
    chmodSync(file, 0o600);
    expect((await readAccessFile(file)).ok).toBe(true);
  });

  it('armguard run refuses it too', async () => {
    const file = join(dir, 'plain-run.yaml');
    writeFileSync(file, plain, { mode: 0o604 });
    chmodSync(file, 0o604);
    const r = await parseRunArgs([
      'so101',
      '--emulator',
      '--calibration',
      join(repoRoot, 'calibration/so101-demo.yaml'),
      '--task',
      'so101-pick-blue-can',
      '--access',
      file,
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join('\n')).toMatch(/readable by other users \(mode 604\)/);
  });

  it('a broker password in the --mqtt URL is refused; ARMGUARD_MQTT_PASSWORD or --mqtt-credentials (mode 0600) are used instead', async () => {
    const base = [
      'so101',
      '--emulator',
      '--calibration',
      join(repoRoot, 'calibration/so101-demo.yaml'),
      '--task',
      'so101-pick-blue-can',
    ];
    const inUrl = await parseRunArgs([...base, '--mqtt', 'mqtt://ag:secret@127.0.0.1:1883']);
    expect(!inUrl.ok && inUrl.errors[0]).toMatch(/password in the URL is visible .*ARMGUARD_MQTT_PASSWORD/);
    const creds = join(dir, 'broker.yaml');
    writeFileSync(creds, 'username: ag\npassword: "from-file-1"\n', { mode: 0o644 });
    chmodSync(creds, 0o644);
    const open = await parseRunArgs([...base, '--mqtt', 'mqtt://127.0.0.1:1883', '--mqtt-credentials', creds]);
    expect(!open.ok && open.errors[0]).toMatch(/readable by group or other users \(mode 644\).*chmod 600/);
    chmodSync(creds, 0o600);
    const ok = await parseRunArgs([...base, '--mqtt', 'mqtt://127.0.0.1:1883', '--mqtt-credentials', creds]);
    expect(ok.ok && ok.options.broker).toEqual({
      kind: 'external',
      url: 'mqtt://127.0.0.1:1883',
      username: 'ag',
      password: 'from-file-1',
    });
    process.env.ARMGUARD_MQTT_USERNAME = 'env-user';
    process.env.ARMGUARD_MQTT_PASSWORD = 'env-pass-1';
    try {
      const env = await parseRunArgs([...base, '--mqtt', 'mqtt://127.0.0.1:1883']);
      expect(env.ok && env.options.broker).toEqual({
        kind: 'external',
        url: 'mqtt://127.0.0.1:1883',
        username: 'env-user',
        password: 'env-pass-1',
      });
    } finally {
      delete process.env.ARMGUARD_MQTT_USERNAME;
      delete process.env.ARMGUARD_MQTT_PASSWORD;
    }
  });
});
