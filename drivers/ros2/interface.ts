/**
 * The small ROS 2 interface armguard uses (node, subscription, publisher, service, timer, QoS).
 * Two implementations share one contract suite (test/contract/support/ros-contract.ts):
 * - `RclnodejsRos` (rclnodejs-adapter.ts): the real one, loaded lazily when ROS 2 is sourced;
 * - `FakeRosGraph` (fake-ros-graph.ts): an in-process FAKE of a ROS 2 graph for CI machines
 *   without ROS 2. It is a test double, not a ROS implementation.
 * Nothing outside drivers/ros2 imports rclnodejs. Interface type names are written in full,
 * as rclnodejs wants them: 'std_msgs/msg/String', 'std_srvs/srv/Trigger'.
 */
import type { TimerHandle } from '../../src/util/clock.js';
import type { RosTimeBase } from '../../src/mcap/messages.js';

export type Reliability = 'reliable' | 'best_effort';
export type Durability = 'volatile' | 'transient_local';

export interface QosProfile {
  readonly reliability: Reliability;
  readonly durability: Durability;
  readonly depth: number;
}

/** rclcpp's SensorDataQoS: best effort, volatile, depth 5 (what franka convenience topics and mocap use). */
export const QOS_SENSOR_DATA: QosProfile = { reliability: 'best_effort', durability: 'volatile', depth: 5 };
/** The default reliable profile (depth 10). */
export const QOS_RELIABLE: QosProfile = { reliability: 'reliable', durability: 'volatile', depth: 10 };
/** Latched state (gate state): reliable + transient local, depth 1. */
export const QOS_LATCHED: QosProfile = { reliability: 'reliable', durability: 'transient_local', depth: 1 };

/**
 * DDS request/offer compatibility: a reliable subscription does not match a best-effort publisher,
 * and a transient-local subscription does not match a volatile publisher.
 */
export function qosCompatible(offered: QosProfile, requested: QosProfile): boolean {
  if (requested.reliability === 'reliable' && offered.reliability === 'best_effort') return false;
  if (requested.durability === 'transient_local' && offered.durability === 'volatile') return false;
  return true;
}

export interface RosSubscription {
  readonly topic: string;
  destroy(): void;
}

export interface RosPublisher<T> {
  readonly topic: string;
  publish(message: T): void;
  destroy(): void;
}

export interface RosService {
  readonly name: string;
  destroy(): void;
}

export interface RosServiceClient<Req, Res> {
  readonly name: string;
  /** Resolves with the response, or rejects after `timeoutSeconds` with no server answer. */
  call(request: Req, timeoutSeconds?: number): Promise<Res>;
  destroy(): void;
}

export interface RosNodeOptions {
  namespace?: string;
  /**
   * Node-local remaps (`from` → `to`), applied before the process-wide `--ros-args -r` rules.
   * `from` and `to` may be relative or private; both are expanded against this node.
   */
  remaps?: Readonly<Record<string, string>>;
}

export interface RosNode {
  /** The node's name and namespace as the graph sees them (after `__node`/`__ns` remaps). */
  readonly name: string;
  readonly namespace: string;
  createSubscription<T>(type: string, topic: string, qos: QosProfile, callback: (message: T) => void): RosSubscription;
  createPublisher<T>(type: string, topic: string, qos: QosProfile): RosPublisher<T>;
  createService<Req, Res>(type: string, name: string, handler: (request: Req) => Res): RosService;
  createClient<Req, Res>(type: string, name: string): RosServiceClient<Req, Res>;
  createTimer(periodSeconds: number, callback: () => void): TimerHandle;
  /** Node clock: seconds since `time.originNs` (see RosTimeBase). */
  now(): number;
  /** The time base of `now()`: converts message stamps to and from the node's seconds. */
  readonly time: RosTimeBase;
  destroy(): void;
}

export interface RosContext {
  createNode(name: string, options?: RosNodeOptions): RosNode;
  /** Process callbacks (rclnodejs `node.spin()` for every node); a no-op where delivery is synchronous. */
  spin(): void;
  /**
   * The application handles SIGINT itself: remove the client library's own SIGINT handler, which
   * would otherwise shut the context down and destroy every node under the application's feet
   * (rclnodejs installs one when it is imported; `rclnodejs.removeSignalHandlers()`).
   */
  removeSignalHandlers(): void;
  shutdown(): Promise<void>;
}

/** One `-r from:=to` rule; `node` set for a node-specific rule (`-r node:from:=to`). */
export interface RemapRule {
  readonly node?: string;
  readonly from: string;
  readonly to: string;
}

/** What `--ros-args` says about names: rcl's `__ns`, `__node` and remap rules. */
export interface RosNameArgs {
  namespace?: string;
  nodeName?: string;
  remaps: RemapRule[];
}

/**
 * Read the name-related ROS arguments (`--ros-args ... [--]`): `-r`/`--remap` `[node:]from:=to`,
 * with the special names `__ns` and `__node` (`__name`). Other ROS arguments are skipped.
 * Throws on a malformed remap, as rcl_init does.
 */
export function parseRosNameArgs(argv: readonly string[]): RosNameArgs {
  const out: RosNameArgs = { remaps: [] };
  let inRos = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--ros-args') {
      inRos = true;
      continue;
    }
    if (!inRos) continue;
    if (a === '--') {
      inRos = false;
      continue;
    }
    if (a !== '-r' && a !== '--remap') continue;
    const rule = argv[++i];
    const m = rule === undefined ? null : /^(?:([A-Za-z_][A-Za-z0-9_]*):)?([^:]+):=(.+)$/.exec(rule);
    if (!m) throw new Error(`--ros-args: expected -r [node:]from:=to, got '${rule ?? ''}'`);
    const [, node, from, to] = m as unknown as [string, string | undefined, string, string];
    if (from === '__ns') out.namespace = to;
    else if (from === '__node' || from === '__name') out.nodeName = to;
    else out.remaps.push({ ...(node !== undefined ? { node } : {}), from, to });
  }
  return out;
}

function normaliseNamespace(namespace: string): string {
  if (namespace === '' || namespace === '/') return '';
  return namespace.startsWith('/') ? namespace : `/${namespace}`;
}

const NAME_TOKEN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * rcl's topic/service name expansion: `/abs` stays, `~` and `~/x` are private to the node
 * (`<ns>/<node>[/x]`), anything else is relative to the namespace. Throws for a name rcl would
 * refuse (empty, `//`, a trailing `/`, a token that does not start with a letter or `_`).
 */
export function expandTopicName(name: string, nodeName: string, namespace: string): string {
  const ns = normaliseNamespace(namespace);
  let full: string;
  if (name.startsWith('/')) full = name;
  else if (name === '~') full = `${ns}/${nodeName}`;
  else if (name.startsWith('~/')) full = `${ns}/${nodeName}/${name.slice(2)}`;
  else full = `${ns}/${name}`;
  const tokens = full.slice(1).split('/');
  if (full.length < 2 || tokens.some((t) => !NAME_TOKEN.test(t)))
    throw new Error(`invalid topic or service name '${name}' (expands to '${full}')`);
  return full;
}

/**
 * Resolve a topic or service name for a node as rcl does: expand it, then apply the first remap
 * rule whose expanded `from` equals it (node-local rules first, then process-wide ones whose
 * node, if any, is this node), and expand the rule's `to`.
 */
export function resolveTopic(
  name: string,
  nodeName: string,
  namespace: string,
  remaps?: Readonly<Record<string, string>>,
  globalRules: readonly RemapRule[] = [],
): string {
  const full = expandTopicName(name, nodeName, namespace);
  const rules: RemapRule[] = Object.entries(remaps ?? {}).map(([from, to]) => ({ from, to }));
  for (const r of [...rules, ...globalRules]) {
    if (r.node !== undefined && r.node !== nodeName) continue;
    if (expandTopicName(r.from, nodeName, namespace) === full) return expandTopicName(r.to, nodeName, namespace);
  }
  return full;
}
