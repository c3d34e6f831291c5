/**
 * Starts a real Mosquitto (Debian `mosquitto`) on a free loopback port with a password file and
 * the ACL armguard generates, for tests against an external MQTT 5 broker.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
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

export class Mosquitto {
  private proc: ChildProcess | undefined;
  private readonly dir: string;
  readonly url: string;

  private constructor(
    readonly port: number,
    access: AccessConfig,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'armguard-mosq-'));
    // Started as root, mosquitto drops to its own user: it must be able to read these files.
    chmodSync(this.dir, 0o755);
    this.url = `mqtt://127.0.0.1:${port}`;
    const pw = join(this.dir, 'passwd');
    writeFileSync(pw, '');
    for (const u of access.users) execFileSync('mosquitto_passwd', ['-b', pw, u.username, u.password]);
    chmodSync(pw, 0o644);
    writeFileSync(join(this.dir, 'acl'), mosquittoAcl(access), { mode: 0o644 });
    writeFileSync(
      join(this.dir, 'mosquitto.conf'),
      [`listener ${port} 127.0.0.1`, 'allow_anonymous false', `password_file ${pw}`, `acl_file ${join(this.dir, 'acl')}`, 'persistence false', ''].join('\n'),
    );
  }

  static async start(access: AccessConfig): Promise<Mosquitto> {
    const m = new Mosquitto(await freePort(), access);
    await m.launch();
    return m;
  }

  /** (Re)start the broker process and wait until it accepts connections. */
  async launch(): Promise<void> {
    const proc = spawn('mosquitto', ['-c', join(this.dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.proc = proc;
    let log = '';
    proc.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mosquitto did not start: ${log}`)), 10_000);
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
        reject(new Error(`mosquitto exited with ${code}: ${log}`));
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
