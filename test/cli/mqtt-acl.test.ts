import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../support/cli-io.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-acl-'));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const ACCESS = `users:
  - { username: armguard, password: "armguard-secret", roles: [armguard] }
  - { username: alice, password: "alice-secret", roles: [operator] }
  - { username: vla, password: "vla-secret-1", roles: [policy] }
`;

describe('armguard mqtt-acl', () => {
  it("prints the Mosquitto ACL for the access file's users: each reads the tree and writes only what its roles allow", async () => {
    const io = captureIo();
    expect(await main(['mqtt-acl', '--access', tempFile('access.yaml', ACCESS)], io.io)).toBe(0);
    expect(io.err).toEqual([]);
    const acl = io.out.join('\n');
    const block = (user: string) => acl.split('\n\n').find((b) => b.startsWith(`user ${user}`)) ?? '';
    expect(block('armguard')).toContain('topic write armguard/v1/+/gate');
    expect(block('armguard')).not.toContain('cmd/release');
    expect(block('alice')).toContain('topic write armguard/v1/+/cmd/release');
    expect(block('alice')).toContain('topic write armguard/v1/+/cmd/heartbeat');
    expect(block('alice')).not.toContain('chunk/request');
    expect(block('vla')).toContain('topic write armguard/v1/+/chunk/request');
    expect(block('vla')).not.toContain('cmd/release');
    for (const u of ['armguard', 'alice', 'vla']) expect(block(u)).toContain('topic read armguard/v1/#');
  });

  it('--out writes the file; a bad access file is refused naming the file and field', async () => {
    const access = tempFile('access.yaml', ACCESS);
    const out = join(dirs[0]!, 'armguard.acl');
    const io = captureIo();
    expect(await main(['mqtt-acl', '--access', access, '--out', out], io.io)).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^# armguard ACL/);
    expect(io.out).toEqual([`wrote ${out} (3 user(s))`]);
    const bad = captureIo();
    const badPath = tempFile('bad.yaml', 'users:\n  - { username: x, password: "short", roles: [pilot] }\n');
    expect(await main(['mqtt-acl', '--access', badPath], bad.io)).toBe(1);
    expect(bad.err.join('\n')).toMatch(/bad\.yaml:2 field 'users\[0\]\.password'/);
    const usage = captureIo();
    expect(await main(['mqtt-acl'], usage.io)).toBe(2);
    expect(usage.err.join('\n')).toMatch(/give --access/);
  });
});
