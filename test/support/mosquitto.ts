/**
 * Starts a real Mosquitto (Debian `mosquitto`) on a free loopback port with a password file and
 * the ACL armguard generates, for tests against an external MQTT 5 broker. When `mosquitto` or
 * `mosquitto_passwd` is not installed it fails with what to install (never a bare spawn ENOENT).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mosquittoAcl, type AccessConfig } from '../../src/telemetry/access.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Debian puts mosquitto in /usr/sbin, which a non-root PATH may lack. */
const SBIN = ['/usr/sbin', '/usr/local/sbin'];

/** The full path of `program` on `searchPath` (default: PATH plus the sbin directories), or undefined. */
export function findProgram(program: string, searchPath?: string): string | undefined {
  const dirs = searchPath !== undefined ? searchPath.split(':') : [...(process.env.PATH ?? '').split(':'), ...SBIN];
  for (const dir of dirs.filter((d) => d !== '')) {
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Why these tests cannot start Mosquitto here, with what to install; undefined when they can. */
export function mosquittoMissing(searchPath?: string): string | undefined {
  const missing = ['mosquitto', 'mosquitto_passwd'].filter((p) => findProgram(p, searchPath) === undefined);
  if (missing.length === 0) return undefined;
  return `${missing.join(' and ')} not found on PATH or in /usr/sbin: these tests run a real Mosquitto broker — install it (Debian/Ubuntu: sudo apt-get install mosquitto; Fedora: dnf install mosquitto; macOS: brew install mosquitto)`;
}

export class Mosquitto {
  private proc: ChildProcess | undefined;
  private readonly dir: string;
  readonly url: string;

  private readonly bin: string;

  private constructor(
    readonly port: number,
    access: AccessConfig,
    searchPath?: string,
  ) {
    const missing = mosquittoMissing(searchPath);
    if (missing) throw new Error(missing);
    this.bin = findProgram('mosquitto', searchPath)!;
    const passwd = findProgram('mosquitto_passwd', searchPath)!;
    this.dir = mkdtempSync(join(tmpdir(), 'armguard-mosq-'));
    // Started as root, mosquitto drops to its own user: it must be able to read these files.
    chmodSync(this.dir, 0o755);
    this.url = `mqtt://127.0.0.1:${port}`;
    const pw = join(this.dir, 'passwd');
    writeFileSync(pw, '');
    for (const u of access.users) {
      if (u.password === undefined)
        throw new Error(
          `user ${u.username}: the test broker needs the plaintext password (mosquitto_passwd hashes it itself)`,
        );
      execFileSync(passwd, ['-b', pw, u.username, u.password]);
    }
    chmodSync(pw, 0o644);
    writeFileSync(join(this.dir, 'acl'), mosquittoAcl(access), { mode: 0o644 });
    writeFileSync(
      join(this.dir, 'mosquitto.conf'),
      [
        `listener ${port} 127.0.0.1`,
        'allow_anonymous false',
        'set_tcp_nodelay true',
        `password_file ${pw}`,
        `acl_file ${join(this.dir, 'acl')}`,
        'persistence false',
        '',
      ].join('\n'),
    );
  }

  /** Configure and launch on a free port; `searchPath` replaces PATH when looking for the programs. */
  static async start(access: AccessConfig, searchPath?: string): Promise<Mosquitto> {
    const m = Mosquitto.create(access, await freePort(), searchPath);
    await m.launch();
    return m;
  }

  /** Configure for `port` without launching (a broker that is not there yet). */
  static create(access: AccessConfig, port: number, searchPath?: string): Mosquitto {
    return new Mosquitto(port, access, searchPath);
  }

  /** (Re)start the broker process and wait until it accepts connections. */
  async launch(): Promise<void> {
    const proc = spawn(this.bin, ['-c', join(this.dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.proc = proc;
    let log = '';
    proc.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`mosquitto did not start within 10 s: ${log || '(it printed nothing)'}`)),
        10_000,
      );
      proc.once('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`cannot run ${this.bin}: ${e.message}`));
      });
      const check = () => {
        const sock = createServer();
        // The port is taken once mosquitto listens: binding it fails with EADDRINUSE.
        sock.once('error', () => {
          clearTimeout(timer);
          resolve();
        });
        sock.listen(this.port, '127.0.0.1', () => sock.close(() => setTimeout(check, 20)));
      };
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`mosquitto exited with ${code}: ${log || '(it printed nothing)'}`));
      });
      check();
    });
    proc.removeAllListeners('exit');
  }

  /** Kill the broker (SIGKILL, as a crash) and wait for it to be gone. */
  async kill(): Promise<void> {
    const p = this.proc;
    this.proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((r) => {
      p.once('exit', () => r());
      p.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
