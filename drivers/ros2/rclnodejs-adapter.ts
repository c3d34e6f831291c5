/**
 * The real ROS 2 implementation of the interface, over rclnodejs. rclnodejs is an optional peer
 * dependency: it is imported lazily, only here, and only when a ROS 2 command runs. Without a
 * sourced ROS 2 installation `loadRclnodejsRos` fails with a message that says what to do.
 */
import type { TimerHandle } from '../../src/util/clock.js';
import { systemTimers } from '../../src/platform/system-clock.js';
import {
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

/** The part of rclnodejs this adapter uses (rclnodejs ≥ 0.27). */
interface RclnodejsQosClass {
  new (history: number, depth: number, reliability: number, durability: number): unknown;
  HistoryPolicy: { RMW_QOS_POLICY_HISTORY_KEEP_LAST: number };
  ReliabilityPolicy: { RMW_QOS_POLICY_RELIABILITY_RELIABLE: number; RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT: number };
  DurabilityPolicy: { RMW_QOS_POLICY_DURABILITY_VOLATILE: number; RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL: number };
}
interface RclNode {
  createSubscription(type: string, topic: string, options: { qos: unknown }, cb: (m: unknown) => void): { topic?: string };
  createPublisher(type: string, topic: string, options: { qos: unknown }): { publish(m: unknown): void };
  createService(type: string, name: string, options: object, cb: (req: unknown, res: { send(r: unknown): void }) => void): unknown;
  createClient(type: string, name: string): {
    waitForService(timeoutMs: number): Promise<boolean>;
    sendRequest(req: unknown, cb: (res: unknown) => void): void;
  };
  createTimer(period: bigint, cb: () => void): { cancel(): void };
  destroySubscription(s: unknown): void;
  destroyPublisher(p: unknown): void;
  destroyService(s: unknown): void;
  destroyClient(c: unknown): void;
  now(): { nanoseconds: bigint | number };
  destroy(): void;
}
interface Rclnodejs {
  init(): Promise<void>;
  Node: new (name: string, namespace?: string) => RclNode;
  QoS: RclnodejsQosClass;
  spin(node: RclNode): void;
  shutdown(): void;
}

export class RosUnavailableError extends Error {
  override readonly name = 'RosUnavailableError';
}

/** Load rclnodejs and initialise a ROS 2 context. */
export async function loadRclnodejsRos(env: Readonly<Record<string, string | undefined>> = process.env): Promise<RosContext> {
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
  await mod.init();
  return new RclnodejsRos(mod);
}

class RclnodejsRos implements RosContext {
  private readonly nodes: RclNode[] = [];
  private spinning = false;
  constructor(private readonly rcl: Rclnodejs) {}
  createNode(name: string, options: RosNodeOptions = {}): RosNode {
    const node = new this.rcl.Node(name, options.namespace ?? '');
    this.nodes.push(node);
    if (this.spinning) this.rcl.spin(node);
    return new RclnodejsNode(this.rcl, node, name, options.namespace ?? '', options.remaps, () => {
      const i = this.nodes.indexOf(node);
      if (i >= 0) this.nodes.splice(i, 1);
    });
  }
  /** Spin every node, and from now on every node created later. Idempotent (rclnodejs refuses to spin a node twice). */
  spin(): void {
    if (this.spinning) return;
    this.spinning = true;
    for (const n of this.nodes) this.rcl.spin(n);
  }
  async shutdown(): Promise<void> {
    this.rcl.shutdown();
  }
}

class RclnodejsNode implements RosNode {
  constructor(
    private readonly rcl: Rclnodejs,
    private readonly node: RclNode,
    readonly name: string,
    readonly namespace: string,
    private readonly remaps: Readonly<Record<string, string>> | undefined,
    private readonly onDestroy: () => void,
  ) {}

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
  private resolve(topic: string): string {
    return resolveTopic(topic, this.name, this.namespace, this.remaps);
  }
  createSubscription<T>(type: string, topic: string, qos: QosProfile, callback: (message: T) => void): RosSubscription {
    const full = this.resolve(topic);
    const sub = this.node.createSubscription(type, full, { qos: this.qos(qos) }, (m) => callback(m as T));
    return { topic: full, destroy: () => this.node.destroySubscription(sub) };
  }
  createPublisher<T>(type: string, topic: string, qos: QosProfile): RosPublisher<T> {
    const full = this.resolve(topic);
    const pub = this.node.createPublisher(type, full, { qos: this.qos(qos) });
    return { topic: full, publish: (m: T) => pub.publish(m), destroy: () => this.node.destroyPublisher(pub) };
  }
  createService<Req, Res>(type: string, name: string, handler: (request: Req) => Res): RosService {
    const full = this.resolve(name);
    const svc = this.node.createService(type, full, {}, (req, res) => res.send(handler(req as Req)));
    return { name: full, destroy: () => this.node.destroyService(svc) };
  }
  createClient<Req, Res>(type: string, name: string): RosServiceClient<Req, Res> {
    const full = this.resolve(name);
    const client = this.node.createClient(type, full);
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
    return Number(this.node.now().nanoseconds) / 1e9;
  }
  destroy(): void {
    this.onDestroy();
    this.node.destroy();
  }
}

