/**
 * Writes a synthetic Franka recording as a real rosbag2 MCAP file: FrankaRobotState at 1 kHz and
 * gripper joint states at 15 Hz, with chosen wrist-torque spikes, for replay tests and benchmarks.
 */
import { offeredQos } from '../../src/mcap/index.js';
import { writeBagFile } from '../../src/platform/bag-writer.js';
import { frankaRobotState, jointState } from '../mcap/support/franka-fixtures.js';

export const FRANKA_STATE_TOPIC = '/franka_robot_state_broadcaster/robot_state';
export const FRANKA_GRIPPER_TOPIC = '/franka_gripper/joint_states';

export interface FrankaBagPlan {
  seconds: number;
  /** [start s, end s, joint index, torque N·m] spikes on top of a calm baseline. */
  spikes?: [number, number, number, number][];
  /** Robot-state samples (by index, 1 kHz) recorded as bytes that are not a FrankaRobotState. */
  garbled?: readonly number[];
  startNs?: bigint;
  /** Joint positions of every robot state (rad; default the ready pose). */
  q?: readonly number[];
  /** One more gripper message at this log time (ns), after the rest: e.g. a record on another time base. */
  lateMessageNs?: bigint;
  /** false: no gripper topic at all (a bag recorded without franka_gripper). */
  gripper?: boolean;
}

export async function writeFrankaBag(path: string, plan: FrankaBagPlan): Promise<void> {
  const t0 = plan.startNs ?? 1_700_000_000_000_000_000n;
  const n = Math.round(plan.seconds * 1000);
  await writeBagFile(path, async (w) => {
    await w.addTopic({
      topic: FRANKA_STATE_TOPIC,
      type: 'franka_msgs/msg/FrankaRobotState',
      qos: [offeredQos('reliable')],
    });
    await w.addTopic({
      topic: FRANKA_GRIPPER_TOPIC,
      type: 'sensor_msgs/msg/JointState',
      qos: [offeredQos('best_effort')],
    });
    for (let k = 0; k < n; k++) {
      const ns = t0 + BigInt(k) * 1_000_000n;
      const s = frankaRobotState(ns, 0);
      const t = k / 1000;
      const effort = [20, 22, 18, 15, 3, 2.5, 1];
      for (const [a, b, j, tau] of plan.spikes ?? []) if (t >= a && t < b) effort[j] = tau;
      s.measured_joint_state.effort = effort;
      s.measured_joint_state.position = [...(plan.q ?? [0, -0.785, 0, -2.356, 0, 1.571, 0.785])];
      s.o_f_ext_hat_k.wrench.force = { x: 0.5, y: -0.3, z: 1.2 };
      // The gripper's state at the same instant comes first, so every robot state sees a gripper.
      if (k % 66 === 0 && plan.gripper !== false) {
        const g = jointState(ns, 0);
        await w.write(FRANKA_GRIPPER_TOPIC, ns, {
          ...g,
          name: ['fr3_finger_joint1', 'fr3_finger_joint2'],
          position: [0.04, 0.04],
          velocity: [0, 0],
          effort: [0, 0],
        });
      }
      if (plan.garbled?.includes(k))
        await w.writeSerialized(FRANKA_STATE_TOPIC, ns, Uint8Array.from([0, 1, 0, 0, 7, 7, 7]));
      else await w.write(FRANKA_STATE_TOPIC, ns, s);
    }
    if (plan.lateMessageNs !== undefined) {
      const g = jointState(plan.lateMessageNs, 0);
      await w.write(FRANKA_GRIPPER_TOPIC, plan.lateMessageNs, {
        ...g,
        name: ['fr3_finger_joint1', 'fr3_finger_joint2'],
        position: [0.04, 0.04],
        velocity: [0, 0],
        effort: [0, 0],
      });
    }
  });
}
