/**
 * A pseudo-terminal pair from Debian `socat`: bytes written to one end come out of the other, as
 * through a serial cable. Used to run the driver against the emulator through a real tty.
 *
 * socat cannot ask the kernel to kill it with its parent (no PR_SET_PDEATHSIG option), so it runs
 * under a small POSIX-shell guard that polls this process's pid and ends socat once this process
 * is gone — also after a SIGKILL, which no exit handler of ours can see.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PtyPair {
  /** Symlink to one pty (e.g. the driver side). */
  readonly a: string;
  /** Symlink to the other pty (e.g. the emulator side). */
  readonly b: string;
  /** Pid of the guard shell that owns socat (killing it ends socat too). */
  readonly pid: number | undefined;
  /** Resolves when socat has exited (killed or otherwise). */
  readonly exited: Promise<void>;
  /** Kill socat (SIGTERM): both ptys vanish, as when a USB adapter is unplugged. */
  kill(): Promise<void>;
}

export interface PtyPairOptions {
  /** Prefix for the two symlinks; default a unique name in the temp dir. */
  prefix?: string;
  /** How long to wait for socat to be ready, in ms. Default 5000. */
  readyTimeoutMs?: number;
  socatPath?: string;
}

let counter = 0;

/** How often (s) the guard checks that this process is still alive. */
export const PARENT_POLL_S = 0.2;

/**
 * `sh -c GUARD sh <parent pid> <socat> <args…>`: runs socat in the background, ends it when the
 * parent pid disappears or the guard is told to stop (TERM/INT/HUP), and exits when socat does.
 */
const GUARD = [
  'parent=$1; shift',
  'command -v "$1" >/dev/null 2>&1 || { echo "cannot run $1: not found" >&2; exit 127; }',
  '"$@" & child=$!',
  "trap 'kill -TERM $child 2>/dev/null; wait $child; exit 0' TERM INT HUP",
  `while kill -0 "$parent" 2>/dev/null && kill -0 $child 2>/dev/null; do sleep ${PARENT_POLL_S}; done`,
  'kill -TERM $child 2>/dev/null',
  'wait $child',
].join('\n');

/** Spawn `socat -d -d pty,raw,echo=0,link=A pty,raw,echo=0,link=B` and wait until it is ready. */
export function openPtyPair(options: PtyPairOptions = {}): Promise<PtyPair> {
  const prefix = options.prefix ?? join(tmpdir(), `armguard-pty-${process.pid}-${++counter}`);
  const a = `${prefix}-a`;
  const b = `${prefix}-b`;
  const timeoutMs = options.readyTimeoutMs ?? 5000;
  const child: ChildProcess = spawn(
    'sh',
    [
      '-c',
      GUARD,
      'sh',
      String(process.pid),
      options.socatPath ?? 'socat',
      '-d',
      '-d',
      `pty,raw,echo=0,link=${a}`,
      `pty,raw,echo=0,link=${b}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return new Promise((resolve, reject) => {
    let log = '';
    let ready = false;
    const timer = setTimeout(() => fail(new Error(`socat not ready after ${timeoutMs} ms: ${log.trim()}`)), timeoutMs);
    const fail = (e: Error): void => {
      clearTimeout(timer);
      child.kill('SIGTERM'); // the guard's trap ends socat (a SIGKILL would orphan it)
      reject(e);
    };
    child.once('error', (e) => fail(new Error(`cannot run the socat guard shell (${e.message})`)));
    const onEarlyExit = (code: number | null, signal: string | null): void =>
      fail(
        new Error(
          code === 127
            ? `cannot run socat (${log.trim()}); install it with apt-get install socat`
            : `socat exited early (code ${code}, signal ${signal}): ${log.trim()}`,
        ),
      );
    child.once('exit', onEarlyExit);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (ready) return; // keep draining the pipe so socat never blocks on its log
      log += chunk.toString();
      // socat -d -d logs this once both ptys exist and it is shuttling bytes.
      if (log.includes('starting data transfer loop') && existsSync(a) && existsSync(b)) {
        ready = true;
        clearTimeout(timer);
        child.off('exit', onEarlyExit);
        resolve({
          a,
          b,
          pid: child.pid,
          exited,
          kill: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
  });
}
