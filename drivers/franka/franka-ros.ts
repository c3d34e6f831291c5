/**
 * Franka over ROS 2: a SignalSource fed by franka_robot_state_broadcaster and the gripper's joint
 * states, a JointStateSource, and a CommandSink that forwards checked chunks to the trajectory
 * controller and holds it. QoS: the robot-state topic is reliable; gripper joint states are a
 * sensor stream (best effort matches both reliable and best-effort publishers).
 */
import { SignalFrame } from '../../src/schema/signals.js';
import type {
  CommandSink,
  Fault,
  FaultListener,
  JointChunk,
  JointStateSource,
  SignalSource,
} from '../../src/ports/index.js';
import { QOS_RELIABLE, QOS_SENSOR_DATA, type RosNode, type RosPublisher } from '../ros2/interface.js';
import type { Header, JointState, JointTrajectory } from '../../src/mcap/messages.js';
import { chunkToTrajectory, holdTrajectory } from '../ros2/trajectory.js';
import { FrankaMapping } from './mapping.js';
import { FRANKA_TOPICS, FRANKA_TYPES, type FrankaRobotState } from './messages.js';
import { Listeners } from '../../src/util/listeners.js';

export interface FrankaRosOptions {
  robotStateTopic?: string;
  gripperTopic?: string;
  /** Where checked chunks go (the controller's topic, remapped in launch files). */
  controllerTopic?: string;
  jointNames?: readonly string[];
}

export const FR3_JOINTS = [
  'fr3_joint1',
  'fr3_joint2',
  'fr3_joint3',
  'fr3_joint4',
  'fr3_joint5',
  'fr3_joint6',
  'fr3_joint7',
] as const;

export class FrankaRos implements SignalSource, JointStateSource, CommandSink {
  readonly name = 'franka';
  readonly joints: number;
  private readonly latest = new SignalFrame();
  private readonly positions: Float64Array;
  private positionStamp = NaN;
  /** The newest robot state's header stamp, integer ns on the node's time base (the monitors' sample time). */
  private stateNs = NaN;
  private readonly listeners = new Listeners<Parameters<FaultListener>>();
  private readonly trajectoryPub: RosPublisher<JointTrajectory>;
  private readonly heartbeatPub: RosPublisher<Header>;
  private readonly jointNames: readonly string[];
  get jointNamesList(): readonly string[] {
    return this.jointNames;
  }
  /** Messages received per topic (diagnostics). */
  readonly counts = { robotState: 0, gripper: 0 };

  constructor(
    private readonly node: RosNode,
    readonly mapping: FrankaMapping = new FrankaMapping(),
    options: FrankaRosOptions = {},
  ) {
    this.jointNames = options.jointNames ?? FR3_JOINTS;
    this.joints = this.jointNames.length;
    this.positions = new Float64Array(this.joints);
    node.createSubscription<FrankaRobotState>(
      FRANKA_TYPES.robotState,
      options.robotStateTopic ?? FRANKA_TOPICS.robotState,
      QOS_RELIABLE,
      (m) => this.onState(m),
    );
    node.createSubscription<JointState>(
      FRANKA_TYPES.jointState,
      options.gripperTopic ?? FRANKA_TOPICS.gripperJointStates,
      QOS_SENSOR_DATA,
      (m) => {
        this.counts.gripper++;
        this.mapping.applyGripper(m, this.latest, node.time);
      },
    );
    this.trajectoryPub = node.createPublisher<JointTrajectory>(
      'trajectory_msgs/msg/JointTrajectory',
      options.controllerTopic ?? FRANKA_TOPICS.controllerTrajectory,
      QOS_RELIABLE,
    );
    // Private to the node: two arms (two namespaces or node names) never share it.
    this.heartbeatPub = node.createPublisher<Header>('std_msgs/msg/Header', '~/heartbeat', QOS_SENSOR_DATA);
  }

  private readonly sampleListeners = new Listeners<[t: number]>();

  /** Called after each robot-state sample is mapped (1 kHz on a Franka): drive the monitor step here. */
  onSample(listener: (t: number) => void): void {
    this.sampleListeners.add(listener);
  }

  private onState(m: FrankaRobotState): void {
    this.counts.robotState++;
    try {
      this.mapping.applyState(m, this.latest, (f) => this.emit(f), this.node.time);
      const stamp = (m as Partial<FrankaRobotState> | undefined)?.header?.stamp;
      // ROS 2 stamps are integer sec + nanosec: the sample's own time, exact in ns (not when it arrived).
      const ns = stamp === undefined ? NaN : this.node.time.ns(stamp);
      if (ns === ns) this.stateNs = ns;
      const q =
        (m.measured_joint_state as Partial<FrankaRobotState['measured_joint_state']> | undefined)?.position ?? [];
      if (q.length === this.joints && m.header?.stamp !== undefined) {
        for (let i = 0; i < this.joints; i++) this.positions[i] = q[i] ?? NaN;
        this.positionStamp = this.node.time.seconds(m.header.stamp);
      }
    } catch {
      // A message missing fields (wrong type on the topic) must become a fault, never a throw.
      this.emit({ kind: 'invalid-sample', source: this.name, signal: 'robot_state', value: NaN });
    }
    const t = this.positionStamp;
    this.sampleListeners.emit(t);
  }

  private emit(f: Fault): void {
    const t = this.positionStamp;
    this.listeners.emit(f, t);
  }

  poll(frame: SignalFrame, _now: number): void {
    frame.copyFrom(this.latest);
  }
  /** The robot state's header stamp (ns on the node's time base): the frame is monitored at it. */
  sampleNs(): number {
    return this.stateNs;
  }
  readPositions(out: Float64Array): number {
    out.set(this.positions);
    return this.positionStamp;
  }
  execute(chunk: JointChunk, _now: number): void {
    this.trajectoryPub.publish(chunkToTrajectory(chunk, this.jointNames, '', this.node.time));
  }
  hold(now: number, _reason: string): void {
    this.trajectoryPub.publish(holdTrajectory(this.jointNames, this.node.time.stamp(now)));
  }
  /** Published on ~/heartbeat (/armguard/heartbeat for the default node) for an external watchdog (libfranka itself stops on a missed 1 ms cycle). */
  heartbeat(now: number): void {
    this.heartbeatPub.publish({ stamp: this.node.time.stamp(now), frame_id: 'armguard' });
  }
  onFault(listener: FaultListener): void {
    this.listeners.add(listener);
  }
}
