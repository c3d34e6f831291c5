/**
 * The embedded MQTT 3.1.1 broker (aedes) so one machine needs nothing else. It enforces the
 * AccessPolicy: authentication on connect, per-topic publish/subscribe rules, and reports every
 * refused command so armguard can log it as an event with its reason.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { AccessPolicy, type AccessConfig, type Role } from './access.js';

export interface RefusedCommand {
  clientId: string;
  username: string | undefined;
  topic: string;
  reason: string;
}

export class EmbeddedBroker {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private broker: Aedes | undefined;
  private readonly roles = new WeakMap<object, { username: string | undefined; roles: readonly Role[] }>();
  private readonly refusedListeners: ((r: RefusedCommand) => void)[] = [];
  readonly policy: AccessPolicy;
  port = 0;

  constructor(access: AccessConfig) {
    this.policy = new AccessPolicy(access);
  }

  onRefused(listener: (r: RefusedCommand) => void): void {
    this.refusedListeners.push(listener);
  }

  /** Listen on 127.0.0.1:`port` (0 = any free port); resolves with the URL. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    const broker = await Aedes.createBroker();
    broker.authenticate = (client, username, password, done) => {
      const roles = this.policy.authenticate(username, password?.toString('utf8'));
      if (roles === undefined) {
        const e = Object.assign(new Error('bad username or password'), { returnCode: 4 });
        done(e as Parameters<typeof done>[0], false);
        return;
      }
      this.roles.set(client, { username: username || undefined, roles });
      done(null, true);
    };
    broker.authorizePublish = (client, packet, done) => {
      const who = client ? this.roles.get(client) : { username: undefined, roles: ['armguard' as Role] };
      const d = this.policy.canPublish(who?.roles ?? [], who?.username, packet.topic);
      if (d.allow) return done(null);
      for (const l of this.refusedListeners) l({ clientId: client?.id ?? '', username: who?.username, topic: packet.topic, reason: d.reason });
      done(new Error(d.reason));
    };
    broker.authorizeSubscribe = (client, sub, done) => {
      const who = this.roles.get(client);
      const d = this.policy.canSubscribe(who?.roles ?? [], who?.username, sub.topic);
      done(d.allow ? null : new Error(d.reason), d.allow ? sub : null);
    };
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      broker.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    this.server = server;
    this.broker = broker;
    return `mqtt://${host}:${this.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    const broker = this.broker;
    this.server = undefined;
    this.broker = undefined;
    if (broker) await new Promise<void>((r) => broker.close(() => r()));
    if (server) {
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
}
