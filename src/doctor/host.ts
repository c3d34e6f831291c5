/**
 * The doctor's view of the host: files under a root (so tests inject sysfs, /proc, /dev and /etc
 * trees), the user's groups and the environment. The real host is root '/'.
 */
import { constants } from 'node:fs';
import { access, readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';

export interface HostView {
  /** Text of a file, or undefined when it cannot be read. */
  readText(path: string): Promise<string | undefined>;
  /** Entries of a directory (empty when missing). */
  list(path: string): Promise<string[]>;
  /** Follow symlinks; undefined when the path does not exist. */
  resolveLink(path: string): Promise<string | undefined>;
  /** Can the current user read and write this (already resolved) device path? */
  canReadWrite(path: string): Promise<boolean>;
  /** Names of the current user's groups (as the running process has them). */
  groups(): Promise<string[]>;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The host under `root`. Paths the checks use are absolute (`/sys/...`); a symlink's relative
 * target stays under the root, an absolute one (a pty in tests) is followed as it is.
 */
export function rootedHost(
  root = '/',
  env: Readonly<Record<string, string | undefined>> = process.env,
  groups?: () => Promise<string[]>,
): HostView {
  const at = (p: string) => join(root, p);
  const unroot = (p: string) =>
    root === '/' || !p.startsWith(resolve(root)) ? p : p.slice(resolve(root).length) || '/';
  return {
    async readText(p) {
      try {
        return await readFile(at(p), 'utf8');
      } catch {
        return undefined;
      }
    },
    async list(p) {
      try {
        return (await readdir(at(p))).sort();
      } catch {
        return [];
      }
    },
    async resolveLink(p) {
      try {
        return unroot(await realpath(at(p)));
      } catch {
        // A dangling or absolute link that leaves the root: report the target as written.
        try {
          const target = await readlink(at(p));
          return target.startsWith('/') ? target : unroot(resolve(dirname(at(p)), target));
        } catch {
          return undefined;
        }
      }
    },
    async canReadWrite(p) {
      try {
        await stat(p);
        await access(p, constants.R_OK | constants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
    groups: groups ?? processGroups,
    env,
  };
}

/** `id -Gn`: the groups of the running process (a fresh `usermod -aG` shows only after a new login). */
function processGroups(): Promise<string[]> {
  return new Promise((res) => {
    execFile('id', ['-Gn'], (err, stdout) => res(err ? [] : stdout.trim().split(/\s+/).filter(Boolean)));
  });
}
