/**
 * The small ROS 2 interface armguard uses (node, subscription, publisher, service, timer, QoS).
 * Two implementations share one contract suite (test/contract/ros-contract.ts):
 * - `RclnodejsRos` (rclnodejs-adapter.ts): the real one, loaded lazily when ROS 2 is sourced;
 * - `FakeRosGraph` (fake-ros-graph.ts): an in-process FAKE of a ROS 2 graph for CI machines
 *   without ROS 2. It is a test double, not a ROS implementation.
 * Nothing outside drivers/ros2 imports rclnodejs. Interface type names are written in full,
 * as rclnodejs wants them: 'std_msgs/msg/String', 'std_srvs/srv/Trigger'.
 */
import type { TimerHandle } from '../../src/util/clock.js';

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
  /** Topic remaps applied to names this node creates (`from` → `to`), as `--ros-args -r` does. */
  remaps?: Readonly<Record<string, string>>;
}

export interface RosNode {
  readonly name: string;
  readonly namespace: string;
  createSubscription<T>(type: string, topic: string, qos: QosProfile, callback: (message: T) => void): RosSubscription;
  createPublisher<T>(type: string, topic: string, qos: QosProfile): RosPublisher<T>;
  createService<Req, Res>(type: string, name: string, handler: (request: Req) => Res): RosService;
  createClient<Req, Res>(type: string, name: string): RosServiceClient<Req, Res>;
  createTimer(periodSeconds: number, callback: () => void): TimerHandle;
  /** Node clock, seconds. */
  now(): number;
  destroy(): void;
}

export interface RosContext {
  createNode(name: string, options?: RosNodeOptions): RosNode;
  /** Process callbacks (rclnodejs spin); a no-op where delivery is synchronous. */
  spin(): void;
  shutdown(): Promise<void>;
}

/** Resolve a possibly relative (`~/x`, `x`) topic name against a node, then apply remaps. */
export function resolveTopic(name: string, nodeName: string, namespace: string, remaps?: Readonly<Record<string, string>>): string {
  const ns = namespace === '' || namespace === '/' ? '' : namespace.startsWith('/') ? namespace : `/${namespace}`;
  let full: string;
  if (name.startsWith('/')) full = name;
  else if (name.startsWith('~/')) full = `${ns}/${nodeName}/${name.slice(2)}`;
  else if (name === '~') full = `${ns}/${nodeName}`;
  else full = `${ns}/${name}`;
  if (remaps) {
    const mapped = remaps[full] ?? remaps[name];
    if (mapped !== undefined) return mapped.startsWith('/') ? mapped : `${ns}/${mapped}`;
  }
  return full;
}
