import type { RobotDescription } from '../../../src/kinematics/description.js';
import type { SignalName } from '../../../src/schema/signals.js';

export type Vec3 = readonly [number, number, number];

/** A pick-and-place scene: the MJCF plus what the testbed needs to know about its names. */
export interface SceneSpec {
  readonly id: string;
  readonly xml: string;
  /** The robot description the arm's bodies, joints, actuators and collision geoms were generated from, and the end effector fitted. */
  readonly robot: { readonly description: RobotDescription; readonly endEffector: string };
  /** Arm joints in command order; actuator `act_<joint>` drives each. */
  readonly armJoints: readonly string[];
  /** Finger slide joints, each driven by actuator `act_<joint>`, both from one gripper command. */
  readonly fingerJoints: readonly string[];
  /** Gripper command (last entry of a chunk row) → finger slide target (m). */
  readonly gripper: GripperMap;
  /** Tool-centre-point site (between the finger pads). */
  readonly tcpSite: string;
  /** World xy of the first (vertical) joint axis: top-down grasps face away from it. */
  readonly panAxisXY: readonly [number, number];
  /** Grasp approach leans this far (rad) from straight down, outward from the base. */
  readonly approachTilt: number;
  /** Home pose: arm joints then the gripper command. */
  readonly home: readonly number[];
  /** joint_torque ceiling for this arm (N·m), see design §3 and §5. */
  readonly torqueCeiling: number;
  readonly targetBody: string;
  readonly bystanderBodies: readonly string[];
  /** Radius of the sphere enclosing each bystander (m, bystanderBodies order): its extent as a tracked obstacle. */
  readonly bystanderExtents: readonly number[];
  /** The container the task places the target into (inner extents, world frame). */
  readonly box: {
    readonly center: Vec3;
    readonly innerHalf: readonly [number, number];
    readonly floorTop: number;
    readonly wallTop: number;
  };
  /** Where the target rests at the start (centre of the target body). */
  readonly targetRest: Vec3;
  readonly targetHalfHeight: number;
  /** Seeded start perturbations of free objects: ±xy (m) and ±yaw (rad). */
  readonly perturbation: { readonly xy: number; readonly yaw: number };
  /** Signals this scene provides (a platform declares its signals, design §2). */
  readonly signals: readonly SignalName[];
  /** Unsafe-policy parameters: the joint the tilt policy tips, the stall and fold poses (joint → rad), extra finger opening for a loose grip (m), and the slam spot. */
  readonly tiltJoint: string;
  readonly tiltAngle: number;
  readonly stallPose: Readonly<Record<string, number>>;
  readonly foldPose: Readonly<Record<string, number>>;
  readonly looseGripOffset: number;
  readonly slamSpot: Vec3;
  readonly slamDuration: number;
  /** How far below the table top the slam aims (m). */
  readonly slamDepth: number;
  /** Height above the spot the strike starts from (m). */
  readonly slamHeight: number;
  /** Physics steps per 30 Hz control tick. */
  readonly substeps: number;
  /** Control period (s). */
  readonly controlDt: number;
}

export interface GripperMap {
  readonly open: number;
  readonly closed: number;
  /** Finger slide target (m from centre) for a gripper command. */
  fingerTarget(command: number): number;
  /** Inverse: gripper command for a finger slide position. */
  command(fingerPosition: number): number;
}
