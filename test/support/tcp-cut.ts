/**
 * A loopback TCP relay in front of a broker that a test can cut: `cut()` resets every relayed
 * connection and stops listening (new connections are refused, as with a pulled cable or a dead
 * switch port); `restore()` listens again on the same port. The broker itself keeps running, so
 * what it queued for a disconnected client is observable.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpCut {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  private constructor(
    private readonly targetPort: number,
    private readonly targetHost: string,
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpCut> {
    const c = new TcpCut(targetPort, targetHost);
    await c.listen(0);
    return c;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const a = server.address();
        this.port = typeof a === 'object' && a ? a.port : port;
        resolve();
      });
    });
  }

  /** Reset every relayed connection and refuse new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  async restore(): Promise<void> {
    await this.listen(this.port);
  }

  async stop(): Promise<void> {
    await this.cut();
  }
}
