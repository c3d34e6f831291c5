/**
 * FAKE ROS 2 graph: an in-process stand-in for a live ROS 2 graph seen through rclnodejs, used
 * where ROS 2 cannot run (CI, this project's machines). It is named a fake in code and docs; the
 * real path is rclnodejs-adapter.ts. What it reproduces, because each of these broke armguard on a
 * real graph (issue 19):
 * - messages arrive as rclnodejs delivers them: a typed copy shaped by the interface definition
 *   (Float64Array for float64[], BigInt for int64, defaults for missing fields; rclnodejs-wire.ts);
 *   a publish that does not fit the type throws, as it does in rclnodejs;
 * - discovery takes time and endpoints match one pair at a time in discovery order (the robot
 *   state subscription created first matches first; a message published before its pair matched
 *   is not delivered, except latched ones to transient-local subscribers);
 * - DDS QoS compatibility (a reliable subscription misses a best-effort publisher) and the last
 *   message of transient-local publishers for late joiners;
 * - rcl name resolution: `~/x` and relative names, `--ros-args -r __ns:=/left`, `__node`, remaps;
 * - rclnodejs's SIGINT handler, installed when the library loads: it shuts the context down and
 *   destroys every node (node.now() then throws) unless the application removed it with
 *   `removeSignalHandlers()`;
 * - services answer synchronously; a call with no server waits for one until its timeout, on the
 *   injected timers, as rclnodejs's waitForService does.
 */
import type { TimerHandle, Timers, Clock } from '../../src/util/clock.js';
import {
  parseRosNameArgs,
  qosCompatible,
  resolveTopic,
  type QosProfile,
  type RemapRule,
  type RosContext,
  type RosNode,
  type RosNodeOptions,
  type RosPublisher,
  type RosService,
  type RosServiceClient,
  type RosSubscription,
} from './interface.js';
import { RclnodejsWire, serviceMessageTypes, type RclnodejsWireType } from './rclnodejs-wire.js';
import { RosTimeBase } from '../../src/mcap/messages.js';

interface Endpoint {
  node: string;
  type: string;
  qos: QosProfile;
  alive: boolean;
}
interface SubEndpoint extends Endpoint {
  callback: (m: unknown) => void;
  /** Publishers this subscription has discovered and matched. */
  matched: Set<PubEndpoint>;
}
interface PubEndpoint extends Endpoint {
  latched: unknown[];
}

export interface QosMismatch {
  topic: string;
  publisherNode: string;
  subscriberNode: string;
  offered: QosProfile;
  requested: QosProfile;
}

/** The part of `process` rclnodejs uses for its SIGINT handler. */
export interface SignalEvents {
  on(signal: 'SIGINT', listener: () => void): unknown;
  removeListener(signal: 'SIGINT', listener: () => void): unknown;
}

/** How long matching takes: the first pair `latency` s after it became possible, later ones `interval` s apart. */
export interface FakeDiscovery {
  latency: number;
  interval: number;
}
/** Discovery on a loopback graph: tens of milliseconds, one match after another. */
export const FAKE_DISCOVERY: FakeDiscovery = { latency: 0.02, interval: 0.005 };

export interface FakeRosGraphOptions {
  /**
   * 'rclnodejs' (default): each subscriber gets its own copy shaped as rclnodejs delivers it.
   * 'as-published': the published object itself (a bag replay whose CDR reader already delivers
   * typed arrays and BigInt, and which never touches a message again).
   */
  delivery?: 'rclnodejs' | 'as-published';
  /** Default FAKE_DISCOVERY; 'immediate' matches on creation (a replay, `ros-node --check`). */
  discovery?: FakeDiscovery | 'immediate';
  /** The process's ROS arguments (`--ros-args -r __ns:=/left -r from:=to`), as rcl reads them. */
  rosArgs?: readonly string[];
  /** Where rclnodejs installs its SIGINT handler when it loads (`process`); none if not given. */
  signals?: SignalEvents;
  /**
   * The Unix time (ns) at which the graph's clock reads 0: its nodes' time base (RosTimeBase).
   * Default 0: the clock reads Unix seconds.
   */
  originNs?: bigint;
}

export class FakeRosGraph implements RosContext {
  private readonly subs = new Map<string, SubEndpoint[]>();
  private readonly pubs = new Map<string, PubEndpoint[]>();
  private readonly services = new Map<string, { type: string; handler: (r: unknown) => unknown }>();
  /** Calls waiting for a server to appear, by service name. */
  private readonly serviceWaiters = new Map<string, Set<() => void>>();
  private readonly nodes = new Set<FakeNode>();
  private readonly pendingMatches = new Set<TimerHandle>();
  /** When the last scheduled match happens (discovery is one pair after another). */
  private lastMatchAt = -Infinity;
  private readonly wire = new RclnodejsWire();
  private readonly options: Required<Omit<FakeRosGraphOptions, 'signals' | 'originNs'>>;
  /** Every node's time base (the clock reads seconds since its origin). */
  readonly timeBase: RosTimeBase;
  private readonly nameArgs: { namespace?: string; nodeName?: string; remaps: RemapRule[] };
  private readonly signals: SignalEvents | undefined;
  /** rclnodejs's `_sigHandler`: shut every context down. */
  private readonly sigint = (): void => void this.shutdown();
  private isShutdown = false;
  /** QoS mismatches seen (a real graph reports these as incompatible-QoS events). */
  readonly qosMismatches: QosMismatch[] = [];

  /**
   * @param options `false` is the older form of `{ delivery: 'as-published', discovery: 'immediate' }`.
   */
  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    options: FakeRosGraphOptions | boolean = {},
  ) {
    const o: FakeRosGraphOptions =
      options === false ? { delivery: 'as-published', discovery: 'immediate' } : options === true ? {} : options;
    this.options = {
      delivery: o.delivery ?? 'rclnodejs',
      discovery: o.discovery ?? FAKE_DISCOVERY,
      rosArgs: o.rosArgs ?? [],
    };
    this.nameArgs = parseRosNameArgs(this.options.rosArgs);
    this.signals = o.signals;
    this.timeBase = o.originNs === undefined || o.originNs === 0n ? RosTimeBase.EPOCH : new RosTimeBase(o.originNs);
    // rclnodejs: `process.on('SIGINT', _sigHandler)` at module load; the handler shuts down every context.
    this.signals?.on('SIGINT', this.sigint);
  }

  createNode(name: string, options: RosNodeOptions = {}): RosNode {
    if (this.isShutdown) throw new Error('the ROS context has been shut down');
    const node = new FakeNode(
      this,
      this.nameArgs.nodeName ?? name,
      this.nameArgs.namespace ?? options.namespace ?? '',
      options.remaps,
      this.nameArgs.remaps,
    );
    this.nodes.add(node);
    return node;
  }
  spin(): void {}
  removeSignalHandlers(): void {
    this.signals?.removeListener('SIGINT', this.sigint);
  }
  /** Shut the context down: every node is destroyed (its timers stop, its now() fails), as rcl shutdown does. */
  async shutdown(): Promise<void> {
    this.isShutdown = true;
    for (const n of [...this.nodes]) n.destroy();
    for (const h of this.pendingMatches) h.cancel();
    this.pendingMatches.clear();
    this.subs.clear();
    this.pubs.clear();
    this.services.clear();
    this.serviceWaiters.clear();
    this.removeSignalHandlers();
  }

  /** Topic names with at least one live endpoint, and their types. */
  topics(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [t, list] of [...this.pubs, ...this.subs]) {
      const live = (list as Endpoint[]).find((e) => e.alive);
      if (live) out.set(t, live.type);
    }
    return out;
  }

  /** Names of the services offered now. */
  serviceNames(): string[] {
    return [...this.services.keys()];
  }

  /** @internal The rclnodejs shape of `type`, or undefined when delivering as published. Throws for an unknown type. */
  wireType(type: string): RclnodejsWireType | undefined {
    return this.options.delivery === 'rclnodejs' ? this.wire.type(type) : undefined;
  }
  /** @internal */
  nodeDestroyed(node: FakeNode): void {
    this.nodes.delete(node);
  }
  /** @internal */
  addSubscription(topic: string, e: SubEndpoint): void {
    this.checkType(topic, e.type);
    const list = this.subs.get(topic) ?? [];
    list.push(e);
    this.subs.set(topic, list);
    for (const p of this.pubs.get(topic) ?? []) if (p.alive) this.discover(topic, p, e);
  }
  /** @internal */
  addPublisher(topic: string, e: PubEndpoint): void {
    this.checkType(topic, e.type);
    const list = this.pubs.get(topic) ?? [];
    list.push(e);
    this.pubs.set(topic, list);
    for (const s of this.subs.get(topic) ?? []) if (s.alive) this.discover(topic, e, s);
  }
  /** @internal `message` is already in delivered form; each matched subscriber gets its own copy. */
  deliver(topic: string, from: PubEndpoint, message: unknown): void {
    if (from.qos.durability === 'transient_local') {
      from.latched.push(this.options.delivery === 'as-published' ? message : structuredClone(message));
      if (from.latched.length > from.qos.depth) from.latched.shift();
    }
    const to = (this.subs.get(topic) ?? []).filter((s) => s.alive && s.matched.has(from));
    const last = to.length - 1;
    for (let i = 0; i <= last; i++) {
      // The original goes to the last one, so every copy is taken before any callback could write into it.
      to[i]!.callback(i === last || this.options.delivery === 'as-published' ? message : structuredClone(message));
    }
  }
  /** @internal */
  addService(name: string, type: string, handler: (r: unknown) => unknown): void {
    if (this.services.has(name)) throw new Error(`service ${name} already exists`);
    this.services.set(name, { type, handler });
    const waiters = this.serviceWaiters.get(name);
    this.serviceWaiters.delete(name);
    // Answered after createService returns, as on a real graph.
    for (const w of waiters ?? []) queueMicrotask(w);
  }
  /** @internal Call `ready` when `name` gets a server; returns a cancel function. */
  waitForService(name: string, ready: () => void): () => void {
    const set = this.serviceWaiters.get(name) ?? new Set();
    set.add(ready);
    this.serviceWaiters.set(name, set);
    return () => void set.delete(ready);
  }
  /** @internal */
  removeService(name: string): void {
    this.services.delete(name);
  }
  /** @internal */
  callService(
    name: string,
    type: string,
    request: unknown,
  ): { ok: true; response: unknown } | { ok: false; noServer: boolean; reason: string } {
    const s = this.services.get(name);
    if (!s) return { ok: false, noServer: true, reason: `no server for service ${name}` };
    if (s.type !== type)
      return { ok: false, noServer: false, reason: `service ${name} has type ${s.type}, client asked for ${type}` };
    const types = serviceMessageTypes(type);
    const req = this.wireType(types.request)?.deliver(request) ?? structuredClone(request);
    const res = s.handler(req);
    return { ok: true, response: this.wireType(types.response)?.deliver(res) ?? structuredClone(res) };
  }
  /** @internal */
  get clockSource(): Clock {
    return this.clock;
  }
  /** @internal */
  get timerSource(): Timers {
    return this.timers;
  }

  /** A publisher and a subscriber can see each other: they match after discovery, in order. */
  private discover(topic: string, p: PubEndpoint, s: SubEndpoint): void {
    const d = this.options.discovery;
    if (d === 'immediate') {
      this.match(topic, p, s);
      return;
    }
    const now = this.clock.now();
    const at = Math.max(now + d.latency, this.lastMatchAt + d.interval);
    this.lastMatchAt = at;
    const handle = this.timers.setTimeout(() => {
      this.pendingMatches.delete(handle);
      this.match(topic, p, s);
    }, at - now);
    this.pendingMatches.add(handle);
  }

  private match(topic: string, p: PubEndpoint, s: SubEndpoint): void {
    if (!p.alive || !s.alive) return;
    if (!qosCompatible(p.qos, s.qos)) {
      this.qosMismatches.push({
        topic,
        publisherNode: p.node,
        subscriberNode: s.node,
        offered: p.qos,
        requested: s.qos,
      });
      return;
    }
    s.matched.add(p);
    if (s.qos.durability === 'transient_local')
      for (const m of p.latched) s.callback(this.options.delivery === 'as-published' ? m : structuredClone(m));
  }

  private checkType(topic: string, type: string): void {
    for (const e of [...(this.pubs.get(topic) ?? []), ...(this.subs.get(topic) ?? [])]) {
      if (e.alive && e.type !== type) throw new Error(`topic ${topic} already carries ${e.type}, not ${type}`);
    }
  }
}

class FakeNode implements RosNode {
  private readonly owned: { destroy(): void }[] = [];
  readonly time: RosTimeBase;
  /** rclnodejs nulls a destroyed node's handle and clock. */
  private clock: Clock | null;
  constructor(
    private readonly graph: FakeRosGraph,
    readonly name: string,
    readonly namespace: string,
    private readonly remaps: Readonly<Record<string, string>> | undefined,
    private readonly globalRemaps: readonly RemapRule[],
  ) {
    this.clock = graph.clockSource;
    this.time = graph.timeBase;
  }

  private resolve(topic: string): string {
    this.checkAlive();
    return resolveTopic(topic, this.name, this.namespace, this.remaps, this.globalRemaps);
  }
  private checkAlive(): void {
    if (this.clock === null) throw new Error(`node ${this.name} has been destroyed`);
  }

  createSubscription<T>(type: string, topic: string, qos: QosProfile, callback: (message: T) => void): RosSubscription {
    const full = this.resolve(topic);
    this.graph.wireType(type);
    const e: SubEndpoint = {
      node: this.name,
      type,
      qos,
      callback: callback as (m: unknown) => void,
      alive: true,
      matched: new Set(),
    };
    this.graph.addSubscription(full, e);
    const sub = { topic: full, destroy: () => void (e.alive = false) };
    this.owned.push(sub);
    return sub;
  }
  createPublisher<T>(type: string, topic: string, qos: QosProfile): RosPublisher<T> {
    const full = this.resolve(topic);
    const wire = this.graph.wireType(type);
    const e: PubEndpoint = { node: this.name, type, qos, latched: [], alive: true };
    this.graph.addPublisher(full, e);
    const graph = this.graph;
    const pub: RosPublisher<T> = {
      topic: full,
      publish(message: T) {
        if (!e.alive) throw new Error(`publisher on ${full} has been destroyed`);
        // Shaped (and checked) once at publish, as rclnodejs serialises before sending.
        graph.deliver(full, e, wire ? wire.deliver(message) : message);
      },
      destroy: () => void (e.alive = false),
    };
    this.owned.push(pub);
    return pub;
  }
  createService<Req, Res>(type: string, name: string, handler: (request: Req) => Res): RosService {
    const full = this.resolve(name);
    const types = serviceMessageTypes(type);
    this.graph.wireType(types.request);
    this.graph.wireType(types.response);
    this.graph.addService(full, type, (r) => handler(r as Req));
    const svc = { name: full, destroy: () => this.graph.removeService(full) };
    this.owned.push(svc);
    return svc;
  }
  createClient<Req, Res>(type: string, name: string): RosServiceClient<Req, Res> {
    const full = this.resolve(name);
    const graph = this.graph;
    return {
      name: full,
      call(request: Req, timeoutSeconds = 2): Promise<Res> {
        return new Promise<Res>((resolve, reject) => {
          /** True once the call is decided (answered or refused). */
          const attempt = (): boolean => {
            try {
              const r = graph.callService(full, type, request);
              if (r.ok) resolve(r.response as Res);
              else if (r.noServer) return false;
              else reject(new Error(r.reason));
            } catch (e) {
              reject(e instanceof Error ? e : new Error(String(e)));
            }
            return true;
          };
          if (attempt()) return;
          let stopWaiting = (): void => undefined;
          const timer = graph.timerSource.setTimeout(() => {
            stopWaiting();
            reject(new Error(`no server for service ${full} within ${timeoutSeconds} s`));
          }, timeoutSeconds);
          const wait = (): void => {
            stopWaiting = graph.waitForService(full, () => {
              if (attempt()) timer.cancel();
              else wait();
            });
          };
          wait();
        });
      },
      destroy() {},
    };
  }
  createTimer(periodSeconds: number, callback: () => void): TimerHandle {
    this.checkAlive();
    const h = this.graph.timerSource.setInterval(callback, periodSeconds);
    this.owned.push({ destroy: () => h.cancel() });
    return h;
  }
  now(): number {
    // Same failure as rclnodejs's Node.now() on a destroyed node (`this._clock.now()`).
    const clock = this.clock as Clock;
    return clock.now();
  }
  destroy(): void {
    for (const o of this.owned) o.destroy();
    this.owned.length = 0;
    this.clock = null;
    this.graph.nodeDestroyed(this);
  }
}
