/**
 * Issue #14 item 14: a test that needs Mosquitto, on a machine without it, fails with what to
 * install — not with an empty reason and an unhandled `spawn ENOENT`. The programs are looked up
 * on a PATH that holds only an empty directory (as on a machine without the package).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Mosquitto, findProgram, mosquittoMissing } from '../support/mosquitto.js';

const emptyBin = mkdtempSync(join(tmpdir(), 'armguard-empty-bin-'));
afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));

const access = { users: [{ username: 'armguard', password: 'ag-secret1', roles: ['armguard' as const] }] };

describe('Mosquitto missing', () => {
  it('says which programs are missing and what to install', () => {
    const why = mosquittoMissing(emptyBin);
    expect(why).toMatch(/^mosquitto and mosquitto_passwd not found/);
    expect(why).toMatch(/apt-get install mosquitto/);
  });

  it('Mosquitto.start rejects with that message instead of an unhandled spawn ENOENT', async () => {
    const started = Mosquitto.start(access, emptyBin);
    await expect(started).rejects.toThrow(/install it \(Debian\/Ubuntu: sudo apt-get install mosquitto/);
    await expect(started).rejects.not.toThrow(/ENOENT/);
  });

  it('finds the installed programs by full path (Debian installs mosquitto in /usr/sbin)', () => {
    // This machine has the package (the other broker tests need it): the default search finds both.
    expect(mosquittoMissing()).toBeUndefined();
    expect(findProgram('mosquitto')).toMatch(/\/mosquitto$/);
  });
});
