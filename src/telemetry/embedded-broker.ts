/**
 * The embedded MQTT 3.1.1 broker (aedes) so one machine needs nothing else. It enforces the
 * AccessPolicy: authentication on connect, per-topic publish/subscribe rules, and reports every
 * refused command so armguard can log it as an event with its reason.
 *
 * aedes itself buffers a packet of any size before it authenticates anyone; here every
 * connection's bytes pass an MqttSizeGuard first, so a packet larger than the limit (a CONNECT
 * larger than the pre-authentication limit) closes the connection before the broker buffers it.
 * Failed logins are rate-limited per client address; chunk requests per user (an admission the
 * network worker passes in: chunk-admission.ts), whose refusals the network worker answers through
 * `publish` — the broker itself, not armguard's own connection, so they are answered while that
 * connection is down too; a refused publish is acknowledged and goes no further (not through aedes'
 * publish at all). What the broker writes to a connection in one turn of the event loop goes
 * out in one write (`GuardedConnection`). armguard's own connection and the
 * dashboard's viewer use per-process credentials (random, never written anywhere), so an access
 * file only needs password hashes.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Duplex, Transform } from 'node:stream';
import { Aedes } from 'aedes';
import { AccessPolicy, type AccessConfig, type Role } from './access.js';
import { LoginThrottle } from './login-throttle.js';
import { MqttSizeGuard, type SizeGuardLimits } from './mqtt-size-guard.js';
import { Listeners } from '../util/listeners.js';

/** Default limits: chunk requests (≤ MAX_CHUNK_BYTES of JSON) fit; a CONNECT needs a few hundred bytes. */
export const DEFAULT_BROKER_LIMITS: SizeGuardLimits = { maxPacketBytes: (1 << 20) + 4096, maxConnectBytes: 8 * 1024 };

export interface EmbeddedBrokerOptions {
  limits?: SizeGuardLimits;
  loginThrottle?: LoginThrottle;
  /**
   * Admission of one topic's publishes (chunk requests: src/telemetry/chunk-admission.ts), asked
   * once per allowed publish with the publishing client's authenticated user and client id. A
   * publish it refuses is acknowledged and forwarded to no one (the caller answers it).
   */
  admission?: { topic: string; admit(who: PublishingClient, payload: Buffer): boolean };
}

/**
 * Where a publish the admission refused goes: nowhere. (aedes' authorizeForward cannot skip one
 * publish for a persistent-session subscriber — returning null there closed armguard's own link.)
 */
export const NOT_FORWARDED_TOPIC = '$armguard/not-forwarded';

/**
 * Client ids beginning with this are armguard's (its link is `armguard-<robot>`): only a user with
 * the armguard role may connect with one.
 */
export const RESERVED_CLIENT_ID_PREFIX = 'armguard-';

/** Who published: the user it logged in as (undefined: anonymous) and the client id it chose. */
export interface PublishingClient {
  username: string | undefined;
  clientId: string;
}

/** A connection the size guard closed. */
export interface OversizeRefusal {
  address: string;
  reason: string;
}

export interface InternalCredentials {
  username: string;
  password: string;
}

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
  private readonly refusedListeners = new Listeners<[r: RefusedCommand]>();
  private readonly oversizeListeners = new Listeners<[r: OversizeRefusal]>();
  private readonly internalUsers = new Map<string, { password: Buffer; roles: readonly Role[] }>();
  private readonly throttle: LoginThrottle;
  private readonly limits: SizeGuardLimits;
  private readonly admission: EmbeddedBrokerOptions['admission'];
  readonly policy: AccessPolicy;
  /** armguard's own connection (armguard role) and the dashboard's reader (viewer role). */
  readonly internal: { armguard: InternalCredentials; viewer: InternalCredentials };
  port = 0;

  constructor(access: AccessConfig, options: EmbeddedBrokerOptions = {}) {
    this.policy = new AccessPolicy(access);
    this.limits = options.limits ?? DEFAULT_BROKER_LIMITS;
    this.throttle = options.loginThrottle ?? new LoginThrottle();
    this.admission = options.admission;
    const make = (role: Role): InternalCredentials => {
      const c = {
        username: `armguard-internal-${role}-${randomBytes(6).toString('hex')}`,
        password: randomBytes(24).toString('base64'),
      };
      this.internalUsers.set(c.username, { password: Buffer.from(c.password), roles: [role] });
      return c;
    };
    this.internal = { armguard: make('armguard'), viewer: make('viewer') };
  }

  onOversize(listener: (r: OversizeRefusal) => void): void {
    this.oversizeListeners.add(listener);
  }

  onRefused(listener: (r: RefusedCommand) => void): void {
    this.refusedListeners.add(listener);
  }

  /** Listen on 127.0.0.1:`port` (0 = any free port); resolves with the URL. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    const broker = await Aedes.createBroker();
    broker.authenticate = (client, username, password, done) => {
      const refuse = (returnCode: 2 | 4 | 5, message: string) =>
        done(Object.assign(new Error(message), { returnCode }) as Parameters<typeof done>[0], false);
      // A second connection with a client id takes the first one's place: a user who may not act as
      // armguard must not be able to disconnect armguard's own link (its command channel) that way.
      const reservedId = (roles: readonly Role[]) =>
        client.id.startsWith(RESERVED_CLIENT_ID_PREFIX) && !roles.includes('armguard');
      // Nor may one user take another's connection: client ids are not secret (they were readable on
      // $SYS until that became armguard's alone; they can be guessed), and the dashboard's clients
      // (the page's e-stop goes through them) use ids that are not reserved. A client id already
      // connected is taken over only by the same user (a client reconnecting after a lost connection).
      const takesOverAnother = (name: string | undefined) => {
        const existing = (broker as unknown as { clients: Record<string, object | undefined> }).clients[client.id];
        if (existing === undefined || existing === client) return false;
        return this.roles.get(existing)?.username !== name;
      };
      const internal = username ? this.internalUsers.get(username) : undefined;
      if (internal) {
        const ok =
          password !== undefined &&
          password.length === internal.password.length &&
          timingSafeEqual(password, internal.password);
        if (!ok) return refuse(4, 'bad username or password');
        this.roles.set(client, { username, roles: internal.roles });
        return done(null, true);
      }
      const address = addressOf(client);
      const allowed = this.throttle.check(address, performance.now() / 1000);
      if (!allowed.ok) return refuse(5, `too many failed logins from ${address}`);
      this.policy.authenticate(username, password?.toString('utf8')).then(
        (roles) => {
          if (roles === undefined) {
            this.throttle.failed(address, performance.now() / 1000);
            return refuse(4, 'bad username or password');
          }
          this.throttle.succeeded(address);
          if (reservedId(roles)) return refuse(2, `client id '${client.id}' is reserved for armguard's own connection`);
          if (takesOverAnother(username || undefined))
            return refuse(2, `client id '${client.id}' is connected as another user`);
          this.roles.set(client, { username: username || undefined, roles });
          done(null, true);
        },
        () => refuse(4, 'bad username or password'),
      );
    };
    const admission = this.admission;
    // Publishes the admission refused (below): acknowledged by aedes as any other, then published to
    // no one — so not published at all. aedes calls `broker.publish` for every authorised publish;
    // for these the call ends here (no packet copy, no persistence lookup for offline subscribers,
    // no topic match, no 'publish' event): under a chunk flood that pipeline ran once per refused
    // request besides the one for its answer. The not-forwarded topic stays as the fail-safe.
    const notPublished = new WeakSet<object>();
    const publishAll = broker.publish.bind(broker) as (packet: unknown, client: unknown, done?: unknown) => void;
    (broker as unknown as { publish: typeof publishAll }).publish = (packet, client, done) => {
      if (typeof packet === 'object' && packet !== null && notPublished.delete(packet)) {
        const callback = typeof client === 'function' ? client : done;
        if (typeof callback === 'function') (callback as (e: null) => void)(null);
        return;
      }
      publishAll(packet, client, done);
    };
    broker.authorizePublish = (client, packet, done) => {
      const who = client ? this.roles.get(client) : { username: undefined, roles: ['armguard' as Role] };
      const d = this.policy.canPublish(who?.roles ?? [], who?.username, packet.topic);
      if (d.allow) {
        const payload = packet.payload;
        if (admission && client && packet.topic === admission.topic && typeof payload === 'object')
          if (!admission.admit({ username: who?.username, clientId: client.id }, payload)) {
            // Acknowledged (QoS 1) and delivered to none of armguard's clients: a topic no wildcard
            // matches ('$' topics), never retained. (Any logged-in client may read chunk requests on
            // their own topic anyway: nothing is exposed that was not.)
            packet.topic = NOT_FORWARDED_TOPIC;
            packet.retain = false;
            notPublished.add(packet);
          }
        return done(null);
      }
      this.refusedListeners.emit({
        clientId: client?.id ?? '',
        username: who?.username,
        topic: packet.topic,
        reason: d.reason,
      });
      done(new Error(d.reason));
    };
    broker.authorizeSubscribe = (client, sub, done) => {
      // Refused publishes must reach no one: no subscription to (a filter matching) their topic.
      // Filters beginning with a wildcard never match '$' topics; only a '$armguard…' filter could.
      if (sub.topic.startsWith(NOT_FORWARDED_TOPIC.split('/')[0]!)) return done(null, null);
      const who = this.roles.get(client);
      const d = this.policy.canSubscribe(who?.roles ?? [], who?.username, sub.topic);
      done(d.allow ? null : new Error(d.reason), d.allow ? sub : null);
    };
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      // MQTT packets are small and latency-critical (an e-stop): no Nagle delay behind a pending ACK.
      socket.setNoDelay(true);
      broker.handle(this.guarded(socket));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
    } catch (e) {
      // The aedes instance's timers would keep the process alive after a failed start.
      await new Promise<void>((r) => broker.close(() => r()));
      throw e;
    }
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    this.server = server;
    this.broker = broker;
    return `mqtt://${host}:${this.port}`;
  }

  /**
   * Publish `payload` on `topic` as the broker itself (QoS 1, not retained) to the clients
   * subscribed to it: no client connection in between. False when the broker is not running.
   */
  publish(topic: string, payload: string | Buffer): boolean {
    const broker = this.broker;
    if (!broker) return false;
    broker.publish(
      {
        cmd: 'publish',
        topic,
        payload: typeof payload === 'string' ? Buffer.from(payload) : payload,
        qos: 1,
        retain: false,
        dup: false,
      },
      () => undefined,
    );
    return true;
  }

  /** The socket as aedes sees it: reads pass the size guard first; writes are gathered per turn (GuardedConnection). */
  private guarded(socket: Socket): Duplex {
    const guard = new MqttSizeGuard(this.limits);
    const address = socket.remoteAddress ?? '';
    const filter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        const v = guard.push(chunk);
        if (v.ok) return callback(null, chunk);
        this.oversizeListeners.emit({ address, reason: v.reason });
        socket.destroy();
        callback();
      },
    });
    socket.pipe(filter);
    const duplex = new GuardedConnection(socket, filter);
    // aedes reads the peer address from its connection for logs and the login throttle
    Object.assign(duplex, { remoteAddress: address });
    socket.once('close', () => duplex.destroy());
    duplex.on('error', () => undefined);
    return duplex;
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

/**
 * A client connection as aedes sees it: reads come from `incoming` (the size-guarded bytes); writes
 * are held until the end of the current turn of the event loop (setImmediate) and go to the socket
 * in one writev. aedes writes every packet in pieces (header, topic, payload) and answers a
 * publish with several packets (PUBACK, the publishes it forwards), each its own system call
 * before: under a flood of small publishes those writes were the broker's largest cost. An e-stop
 * forwarded to armguard's link waits for the same turn's end, not for a timer.
 */
class GuardedConnection extends Duplex {
  private flushQueued = false;

  constructor(
    private readonly socket: Socket,
    private readonly incoming: Transform,
  ) {
    super();
    incoming.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) incoming.pause();
    });
    incoming.once('end', () => this.push(null));
  }

  override _read(): void {
    this.incoming.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this._writev([{ chunk }], callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    const socket = this.socket;
    if (socket.destroyed) return callback();
    if (!this.flushQueued) {
      this.flushQueued = true;
      socket.cork();
      setImmediate(() => this.flush());
    }
    let accepted = true;
    for (const { chunk } of chunks) accepted = socket.write(chunk);
    // The socket's buffer is full (a slow reader): take more only once it drained.
    if (accepted) callback();
    else socket.once('drain', () => callback());
  }

  /** Send what this turn wrote (the socket writes it at once when the kernel takes it). */
  private flush(): void {
    if (!this.flushQueued) return;
    this.flushQueued = false;
    this.socket.uncork();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flush();
    this.socket.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // What was written before the close goes first (a refused CONNACK, the last PUBACK).
    this.flush();
    this.socket.destroy();
    callback(error);
  }
}

function addressOf(client: unknown): string {
  const conn = (client as { conn?: { remoteAddress?: string } } | undefined)?.conn;
  return conn?.remoteAddress ?? '';
}
