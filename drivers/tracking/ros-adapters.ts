/**
 * ROS 2 tracking adapters (hardware-facts §C): vrpn_mocap PoseStamped per tracker, mocap4r2
 * RigidBodies, and AprilTag transforms on /tf. All are sensor streams: subscribe best-effort so a
 * best-effort publisher (vrpn_mocap's sensor_data_qos default) is matched.
 */
import type { RosNode, RosSubscription } from '../ros2/interface.js';
import { QOS_SENSOR_DATA } from '../ros2/interface.js';
import { RosTimeBase, type Header, type Pose, type PoseStamped, type TFMessage } from '../../src/mcap/messages.js';
import type { SceneTracker } from './scene-tracker.js';

export interface RigidBody {
  rigid_body_name: string;
  pose: Pose;
}
export interface RigidBodies {
  header: Header;
  frame_number: number;
  rigidbodies: RigidBody[];
}

export type TrackingInput =
  | { kind: 'vrpn'; /** tracker name → body name */ trackers: Readonly<Record<string, string>>; prefix?: string }
  | { kind: 'mocap4r2'; topic: string }
  | {
      kind: 'apriltag';
      /** child frame (e.g. 'tag36h11:3') → body name */ tags: Readonly<Record<string, string>>;
      topic?: string;
    };

/** Subscribe `tracker` to a tracking input on `node`. Returns the subscriptions. */
export function subscribeTracking(node: RosNode, tracker: SceneTracker, input: TrackingInput): RosSubscription[] {
  switch (input.kind) {
    case 'vrpn':
      return Object.entries(input.trackers).map(([trackerName, body]) =>
        node.createSubscription<PoseStamped>(
          'geometry_msgs/msg/PoseStamped',
          `${input.prefix ?? '/vrpn_mocap'}/${trackerName}/pose`,
          QOS_SENSOR_DATA,
          (m) => tracker.observePose(body, m.pose, node.time.seconds(m.header.stamp)),
        ),
      );
    case 'mocap4r2':
      return [
        node.createSubscription<RigidBodies>('mocap4r2_msgs/msg/RigidBodies', input.topic, QOS_SENSOR_DATA, (m) =>
          applyRigidBodies(tracker, m, node.time),
        ),
      ];
    case 'apriltag':
      return [
        node.createSubscription<TFMessage>('tf2_msgs/msg/TFMessage', input.topic ?? '/tf', QOS_SENSOR_DATA, (m) =>
          applyTf(tracker, m, input.tags, node.time),
        ),
      ];
  }
}

/** `time`: the node's time base the stamps are read on (src/mcap/messages.ts). */
export function applyRigidBodies(tracker: SceneTracker, m: RigidBodies, time: RosTimeBase = RosTimeBase.EPOCH): void {
  const t = time.seconds(m.header.stamp);
  for (const rb of m.rigidbodies) tracker.observePose(rb.rigid_body_name, rb.pose, t);
}

export function applyTf(
  tracker: SceneTracker,
  m: TFMessage,
  tags: Readonly<Record<string, string>>,
  time: RosTimeBase = RosTimeBase.EPOCH,
): void {
  for (const tf of m.transforms) {
    const body = tags[tf.child_frame_id];
    if (body !== undefined)
      tracker.observe(body, tf.transform.translation, tf.transform.rotation, time.seconds(tf.header.stamp));
  }
}
