/**
 * FAKE ROS 2 graph: an in-process stand-in for a live ROS 2 graph, used where ROS 2 cannot run
 * (CI, this project's machines). It matches topics by name and type, applies DDS QoS
 * compatibility (so a reliable subscriber misses a best-effort publisher, as on a real graph),
 * keeps the last message of transient-local publishers for late joiners, and answers services
 * synchronously (a call with no server waits for one until its timeout, on the injected timers, as
 * rclnodejs's waitForService does). It is named a fake in code and docs; the real path is rclnodejs-adapter.ts.
 */
import type { TimerHandle, Timers, Clock } from '../../src/util/clock.js';
import {
  qosCompatible,
  resolveTopic,
  type QosProfile,
  type RosContext,
  type RosNode,
  type RosNodeOptions,
  type RosPublisher,
  type RosService,
  type RosServiceClient,
  type RosSubscription,
} from './interface.js';

interface Endpoint {
  node: string;
  type: string;
  qos: QosProfile;
}
interface SubEndpoint extends Endpoint {
  callback: (m: unknown) => void;
  alive: boolean;
}
interface PubEndpoint extends Endpoint {
  latched: unknown[];
  alive: boolean;
}

export interface QosMismatch {
  topic: string;
  publisherNode: string;
  subscriberNode: string;
  offered: QosProfile;
  requested: QosProfile;
}

export class FakeRosGraph implements RosContext {
  private readonly subs = new Map<string, SubEndpoint[]>();
  private readonly pubs = new Map<string, PubEndpoint[]>();
  private readonly services = new Map<string, { type: string; handler: (r: unknown) => unknown }>();
  /** Calls waiting for a server to appear, by service name. */
  private readonly serviceWaiters = new Map<string, Set<() => void>>();
  /** QoS mismatches seen (a real graph reports these as incompatible-QoS events). */
  readonly qosMismatches: QosMismatch[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    /**
     * Deliver copies of messages, as a real graph does (default). A replay whose publisher never
     * touches a message again may turn copying off for speed.
     */
    readonly copyMessages = true,
  ) {}

  createNode(name: string, options: RosNodeOptions = {}): RosNode {
    return new FakeNode(this, name, options.namespace ?? '', options.remaps);
  }
  spin(): void {}
  async shutdown(): Promise<void> {
    this.subs.clear();
    this.pubs.clear();
    this.services.clear();
    this.serviceWaiters.clear();
  }

  /** Topic names with at least one live endpoint, and their types. */
  topics(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [t, list] of [...this.pubs, ...this.subs]) {
      const live = (list as Endpoint[]).find((e) => (e as PubEndpoint | SubEndpoint).alive);
      if (live) out.set(t, live.type);
    }
    return out;
  }

  /** @internal used by FakeNode */
  addSubscription(topic: string, e: SubEndpoint): void {
    this.checkType(topic, e.type);
    const list = this.subs.get(topic) ?? [];
    list.push(e);
    this.subs.set(topic, list);
    for (const p of this.pubs.get(topic) ?? []) {
      if (!p.alive) continue;
      if (!this.matches(topic, p, e)) continue;
      if (e.qos.durability === 'transient_local') for (const m of p.latched) e.callback(m);
    }
  }
  /** @internal */
  addPublisher(topic: string, e: PubEndpoint): void {
    this.checkType(topic, e.type);
    const list = this.pubs.get(topic) ?? [];
    list.push(e);
    this.pubs.set(topic, list);
  }
  /** @internal */
  deliver(topic: string, from: PubEndpoint, message: unknown): void {
    if (from.qos.durability === 'transient_local') {
      from.latched.push(message);
      if (from.latched.length > from.qos.depth) from.latched.shift();
    }
    for (const s of this.subs.get(topic) ?? []) {
      if (s.alive && this.matches(topic, from, s)) s.callback(message);
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
  callService(name: string, type: string, request: unknown): { ok: true; response: unknown } | { ok: false; noServer: boolean; reason: string } {
    const s = this.services.get(name);
    if (!s) return { ok: false, noServer: true, reason: `no server for service ${name}` };
    if (s.type !== type) return { ok: false, noServer: false, reason: `service ${name} has type ${s.type}, client asked for ${type}` };
    return { ok: true, response: s.handler(request) };
  }
  /** @internal */
  get clockSource(): Clock {
    return this.clock;
  }
  /** @internal */
  get timerSource(): Timers {
    return this.timers;
  }

  private matches(topic: string, p: PubEndpoint, s: SubEndpoint): boolean {
    if (qosCompatible(p.qos, s.qos)) return true;
    if (!this.qosMismatches.some((m) => m.topic === topic && m.publisherNode === p.node && m.subscriberNode === s.node)) {
      this.qosMismatches.push({ topic, publisherNode: p.node, subscriberNode: s.node, offered: p.qos, requested: s.qos });
    }
    return false;
  }
  private checkType(topic: string, type: string): void {
    for (const e of [...(this.pubs.get(topic) ?? []), ...(this.subs.get(topic) ?? [])]) {
      if (e.alive && e.type !== type) throw new Error(`topic ${topic} already carries ${e.type}, not ${type}`);
    }
  }
}

class FakeNode implements RosNode {
  private readonly owned: { destroy(): void }[] = [];
  constructor(
    private readonly graph: FakeRosGraph,
    readonly name: string,
    readonly namespace: string,
    private readonly remaps: Readonly<Record<string, string>> | undefined,
  ) {}

  private resolve(topic: string): string {
    return resolveTopic(topic, this.name, this.namespace, this.remaps);
  }

  createSubscription<T>(type: string, topic: string, qos: QosProfile, callback: (message: T) => void): RosSubscription {
    const full = this.resolve(topic);
    const e: SubEndpoint = { node: this.name, type, qos, callback: callback as (m: unknown) => void, alive: true };
    this.graph.addSubscription(full, e);
    const sub = { topic: full, destroy: () => void (e.alive = false) };
    this.owned.push(sub);
    return sub;
  }
  createPublisher<T>(type: string, topic: string, qos: QosProfile): RosPublisher<T> {
    const full = this.resolve(topic);
    const e: PubEndpoint = { node: this.name, type, qos, latched: [], alive: true };
    this.graph.addPublisher(full, e);
    const graph = this.graph;
    const pub: RosPublisher<T> = {
      topic: full,
      publish(message: T) {
        if (e.alive) graph.deliver(full, e, graph.copyMessages ? structuredClone(message) : message);
      },
      destroy: () => void (e.alive = false),
    };
    this.owned.push(pub);
    return pub;
  }
  createService<Req, Res>(type: string, name: string, handler: (request: Req) => Res): RosService {
    const full = this.resolve(name);
    this.graph.addService(full, type, (r) => handler(structuredClone(r) as Req));
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
          const req = structuredClone(request);
          /** True once the call is decided (answered or refused). */
          const attempt = (): boolean => {
            try {
              const r = graph.callService(full, type, req);
              if (r.ok) resolve(structuredClone(r.response) as Res);
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
    const h = this.graph.timerSource.setInterval(callback, periodSeconds);
    this.owned.push({ destroy: () => h.cancel() });
    return h;
  }
  now(): number {
    return this.graph.clockSource.now();
  }
  destroy(): void {
    for (const o of this.owned) o.destroy();
    this.owned.length = 0;
  }
}
