/**
 * The real ROS 2 implementation of the interface, over rclnodejs. rclnodejs is an optional peer
 * dependency: it is imported lazily, only here, and only when a ROS 2 command runs. Without a
 * sourced ROS 2 installation `loadRclnodejsRos` fails with a message that says what to do.
 */
import type { TimerHandle } from '../../src/util/clock.js';
import { systemTimers } from '../../src/platform/system-clock.js';
import {
  parseRosNameArgs,
  resolveTopic,
  type RemapRule,
  type QosProfile,
  type RosContext,
  type RosNode,
  type RosNodeOptions,
  type RosPublisher,
  type RosService,
  type RosServiceClient,
  type RosSubscription,
} from './interface.js';
import { RosTimeBase } from '../../src/mcap/messages.js';

/**
 * The part of rclnodejs this adapter uses (rclnodejs ≥ 0.30: int64 fields are BigInt; 1.x/2.x keep
 * these calls). Subscriptions, services and clients are created with `enableTypedArray: true`
 * (rclnodejs's default, stated so a changed default cannot flip the representation): float64[]
 * fields arrive as Float64Array, the one representation messages.ts declares.
 */
export interface RclnodejsQosClass {
  new (history: number, depth: number, reliability: number, durability: number): unknown;
  HistoryPolicy: { RMW_QOS_POLICY_HISTORY_KEEP_LAST: number };
  ReliabilityPolicy: { RMW_QOS_POLICY_RELIABILITY_RELIABLE: number; RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT: number };
  DurabilityPolicy: { RMW_QOS_POLICY_DURABILITY_VOLATILE: number; RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL: number };
}
export interface EntityOptions {
  qos?: unknown;
  enableTypedArray: true;
}
export interface RclNode {
  createSubscription(type: string, topic: string, options: EntityOptions, cb: (m: unknown) => void): { topic?: string };
  createPublisher(
    type: string,
    topic: string,
    options: { qos: unknown },
  ): { topic?: string; publish(m: unknown): void };
  createService(
    type: string,
    name: string,
    options: EntityOptions,
    cb: (req: unknown, res: { send(r: unknown): void }) => void,
  ): unknown;
  createClient(
    type: string,
    name: string,
    options: EntityOptions,
  ): {
    waitForService(timeoutMs: number): Promise<boolean>;
    sendRequest(req: unknown, cb: (res: unknown) => void): void;
  };
  createTimer(period: bigint, cb: () => void): { cancel(): void };
  destroySubscription(s: unknown): void;
  destroyPublisher(p: unknown): void;
  destroyService(s: unknown): void;
  destroyClient(c: unknown): void;
  now(): { nanoseconds: bigint | number };
  /** The node's effective name and namespace (after `__node`/`__ns` in the ROS arguments). */
  name(): string;
  namespace(): string;
  /** Process this node's callbacks (replaces the deprecated `rclnodejs.spin(node)`). */
  spin(): void;
  destroy(): void;
}
export interface Rclnodejs {
  /** `argv` defaults to process.argv: rcl reads `--ros-args` (remaps, `__ns`, `__node`) from it. */
  init(context?: unknown, argv?: string[]): Promise<void>;
  Node: new (name: string, namespace?: string) => RclNode;
  QoS: RclnodejsQosClass;
  /** Remove the SIGINT handler rclnodejs installs on import (which shuts every context down). */
  removeSignalHandlers(): void;
  shutdown(): void;
  isShutdown(): boolean;
}

export class RosUnavailableError extends Error {
  override readonly name = 'RosUnavailableError';
}

/** Load rclnodejs and initialise a ROS 2 context. */
export async function loadRclnodejsRos(
  env: Readonly<Record<string, string | undefined>> = process.env,
  /** The process's arguments with any `--ros-args ...` (default process.argv). */
  argv?: readonly string[],
): Promise<RosContext> {
  if (!env.ROS_DISTRO) {
    throw new RosUnavailableError(
      'ROS 2 is not sourced (ROS_DISTRO is unset). Run `source /opt/ros/<distro>/setup.bash` and `npm install rclnodejs` first; see hardware.md "Franka with ROS 2".',
    );
  }
  let mod: Rclnodejs;
  try {
    const name = 'rclnodejs';
    const imported = (await import(name)) as { default?: Rclnodejs } & Rclnodejs;
    mod = imported.default ?? imported;
  } catch (e) {
    throw new RosUnavailableError(
      `rclnodejs could not be loaded (${(e as Error).message}). Install it on the ROS 2 machine with \`npm install rclnodejs\` after sourcing ROS 2.`,
    );
  }
  return rclnodejsRos(mod, argv ?? process.argv);
}

/** A RosContext over an already loaded rclnodejs module: initialise it with `argv` (its `--ros-args`). */
export async function rclnodejsRos(mod: Rclnodejs, argv: readonly string[]): Promise<RosContext> {
  if (typeof mod.removeSignalHandlers !== 'function') {
    throw new RosUnavailableError(
      'this rclnodejs has no removeSignalHandlers(): armguard handles SIGINT itself (to hold the arm and close the episode); install a current rclnodejs.',
    );
  }
  await mod.init(undefined, [...argv]);
  return new RclnodejsRos(mod, parseRosNameArgs(argv).remaps);
}

class RclnodejsRos implements RosContext {
  private readonly nodes: RclNode[] = [];
  private spinning = false;
  /** Every node's time base: the ROS clock when the first node was created (RosTimeBase). */
  private timeBase: RosTimeBase | undefined;
  constructor(
    private readonly rcl: Rclnodejs,
    /** The process-wide remap rules rcl applies; kept to report resolved names. */
    private readonly globalRemaps: readonly RemapRule[],
  ) {}
  createNode(name: string, options: RosNodeOptions = {}): RosNode {
    const node = new this.rcl.Node(name, options.namespace ?? '');
    this.nodes.push(node);
    if (this.spinning) node.spin();
    this.timeBase ??= new RosTimeBase(BigInt(node.now().nanoseconds));
    return new RclnodejsNode(this.rcl, node, this.timeBase, options.remaps, this.globalRemaps, () => {
      const i = this.nodes.indexOf(node);
      if (i >= 0) this.nodes.splice(i, 1);
    });
  }
  /** Spin every node, and from now on every node created later. Idempotent (rclnodejs refuses to spin a node twice). */
  spin(): void {
    if (this.spinning) return;
    this.spinning = true;
    for (const n of this.nodes) n.spin();
  }
  removeSignalHandlers(): void {
    this.rcl.removeSignalHandlers();
  }
  async shutdown(): Promise<void> {
    // rclnodejs throws when the context is already shut down (its own SIGINT handler, a second call).
    if (!this.rcl.isShutdown()) this.rcl.shutdown();
  }
}

class RclnodejsNode implements RosNode {
  readonly name: string;
  readonly namespace: string;
  constructor(
    private readonly rcl: Rclnodejs,
    private readonly node: RclNode,
    readonly time: RosTimeBase,
    private readonly remaps: Readonly<Record<string, string>> | undefined,
    private readonly globalRemaps: readonly RemapRule[],
    private readonly onDestroy: () => void,
  ) {
    this.name = node.name();
    this.namespace = node.namespace();
  }

  private qos(p: QosProfile): unknown {
    const Q = this.rcl.QoS;
    return new Q(
      Q.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST,
      p.depth,
      p.reliability === 'reliable'
        ? Q.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE
        : Q.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT,
      p.durability === 'transient_local'
        ? Q.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL
        : Q.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE,
    );
  }
  /**
   * The name handed to rcl: as written (relative and `~/` names stay relative so rcl applies the
   * node's namespace, `__ns` and the process's remap rules), except where a node-local remap
   * matches, which rcl does not know about: then the remapped absolute name.
   */
  private rclName(name: string): string {
    if (!this.remaps) return name;
    const local = resolveTopic(name, this.name, this.namespace, this.remaps);
    return local === resolveTopic(name, this.name, this.namespace) ? name : local;
  }
  /** The resolved name, for reports (rcl's own answer when it gives one). */
  private resolved(name: string, fromRcl: string | undefined): string {
    return fromRcl ?? resolveTopic(name, this.name, this.namespace, this.remaps, this.globalRemaps);
  }
  createSubscription<T>(type: string, topic: string, qos: QosProfile, callback: (message: T) => void): RosSubscription {
    const sub = this.node.createSubscription(
      type,
      this.rclName(topic),
      { qos: this.qos(qos), enableTypedArray: true },
      (m) => callback(m as T),
    );
    return { topic: this.resolved(topic, sub.topic), destroy: () => this.node.destroySubscription(sub) };
  }
  createPublisher<T>(type: string, topic: string, qos: QosProfile): RosPublisher<T> {
    const pub = this.node.createPublisher(type, this.rclName(topic), { qos: this.qos(qos) });
    return {
      topic: this.resolved(topic, pub.topic),
      publish: (m: T) => pub.publish(m),
      destroy: () => this.node.destroyPublisher(pub),
    };
  }
  createService<Req, Res>(type: string, name: string, handler: (request: Req) => Res): RosService {
    const svc = this.node.createService(type, this.rclName(name), { enableTypedArray: true }, (req, res) =>
      res.send(handler(req as Req)),
    );
    return { name: this.resolved(name, undefined), destroy: () => this.node.destroyService(svc) };
  }
  createClient<Req, Res>(type: string, name: string): RosServiceClient<Req, Res> {
    const full = this.resolved(name, undefined);
    const client = this.node.createClient(type, this.rclName(name), { enableTypedArray: true });
    return {
      name: full,
      call(request: Req, timeoutSeconds = 2): Promise<Res> {
        return new Promise<Res>((resolve, reject) => {
          let settled = false;
          const settle = (fn: () => void): void => {
            if (settled) return;
            settled = true;
            timer.cancel();
            fn();
          };
          // One deadline for the whole call: waiting for the server and for its response.
          const timer = systemTimers.setTimeout(
            () => settle(() => reject(new Error(`service ${full}: no response within ${timeoutSeconds} s`))),
            timeoutSeconds,
          );
          client.waitForService(timeoutSeconds * 1000).then(
            (up) => {
              if (settled) return;
              if (!up) {
                settle(() => reject(new Error(`no server for service ${full}`)));
                return;
              }
              try {
                client.sendRequest(request, (r) => settle(() => resolve(r as Res)));
              } catch (e) {
                settle(() => reject(e instanceof Error ? e : new Error(String(e))));
              }
            },
            (e: unknown) => settle(() => reject(e instanceof Error ? e : new Error(String(e)))),
          );
        });
      },
      destroy: () => this.node.destroyClient(client),
    };
  }
  createTimer(periodSeconds: number, callback: () => void): TimerHandle {
    const t = this.node.createTimer(BigInt(Math.round(periodSeconds * 1e9)), callback);
    return { cancel: () => t.cancel() };
  }
  now(): number {
    return Number(BigInt(this.node.now().nanoseconds) - this.time.originNs) / 1e9;
  }
  destroy(): void {
    this.onDestroy();
    this.node.destroy();
  }
}
