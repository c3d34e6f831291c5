/**
 * Fault and CLI tests drive `armguard run` as a real child process (bin/armguard-dev.mjs, the sources through tsx): they kill it,
 * fill its disk or take its ports. Helpers to start it, wait for its lines and find what it left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { CAL, SESSION_ACCESS_YAML } from './run-session.js';

export { CAL };
export const TASK = 'so101-pick-blue-can';

/** A temp dir with an access file (SESSION_ACCESS_YAML's users). */
export function runDir(prefix: string): { dir: string; access: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const access = join(dir, 'access.yaml');
  writeFileSync(access, SESSION_ACCESS_YAML);
  chmodSync(access, 0o600); // plaintext passwords: armguard refuses a file others can read
  return { dir, access };
}

/**
 * The arguments of `armguard run` (after `run`) on the emulated SO-101 with the demo calibration,
 * TASK and the access file `access`, then `more` (episodes directory, ports, durations, …).
 */
export function emulatedRunArgs(access: string, ...more: string[]): string[] {
  return ['so101', '--emulator', '--calibration', CAL, '--task', TASK, '--access', access, ...more];
}

export interface RunProcess {
  child: ChildProcess;
  /** stdout and stderr lines so far. */
  lines: string[];
  waitFor(re: RegExp, seconds?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or signal name) once the process exited. */
  exited: Promise<number | string>;
}

/**
 * `node bin/armguard-dev.mjs <args>` from the repository root (no build needed); `wrapper`: a command
 * and its arguments to run it under (e.g. setpriv dropping a capability).
 */
export function startArmguard(args: readonly string[], wrapper: readonly string[] = []): RunProcess {
  const command = [...wrapper, process.execPath, join(repoRoot, 'bin/armguard-dev.mjs'), ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const onText = (buf: Buffer): void => {
    for (const line of buf.toString().split('\n')) {
      if (line === '') continue;
      lines.push(line);
      waiters = waiters.filter((w) => {
        const m = line.match(w.re);
        if (m) w.resolve(m);
        return !m;
      });
    }
  };
  child.stdout!.on('data', onText);
  child.stderr!.on('data', onText);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return {
    child,
    lines,
    exited,
    waitFor(re, seconds = 20) {
      for (const l of lines) {
        const m = l.match(re);
        if (m) return Promise.resolve(m);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line matching ${re} within ${seconds} s; got:\n${lines.join('\n')}`)),
          seconds * 1000,
        );
        waiters.push({ re, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
  };
}

/** Pids of live processes whose command line contains `needle` (read from /proc). */
export function processesWith(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      if (cmd.includes(needle) && state !== 'Z') out.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Poll until `check` is true or `seconds` pass; returns its last value. */
export async function eventually(check: () => boolean, seconds: number): Promise<boolean> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
