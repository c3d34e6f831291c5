/**
 * A pseudo-terminal pair from Debian `socat`: bytes written to one end come out of the other, as
 * through a serial cable. Used to run the driver against the emulator through a real tty.
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

/** Spawn `socat -d -d pty,raw,echo=0,link=A pty,raw,echo=0,link=B` and wait until it is ready. */
export function openPtyPair(options: PtyPairOptions = {}): Promise<PtyPair> {
  const prefix = options.prefix ?? join(tmpdir(), `armguard-pty-${process.pid}-${++counter}`);
  const a = `${prefix}-a`;
  const b = `${prefix}-b`;
  const timeoutMs = options.readyTimeoutMs ?? 5000;
  const child: ChildProcess = spawn(
    options.socatPath ?? 'socat',
    ['-d', '-d', `pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`],
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
      child.kill('SIGKILL');
      reject(e);
    };
    child.once('error', (e) => fail(new Error(`cannot run socat (${e.message}); install it with apt-get install socat`)));
    const onEarlyExit = (code: number | null, signal: string | null): void =>
      fail(new Error(`socat exited early (code ${code}, signal ${signal}): ${log.trim()}`));
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
