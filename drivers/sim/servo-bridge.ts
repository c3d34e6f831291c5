/**
 * MuJoCo → Feetech emulator (design §10): the simulated SO-101's joints drive the emulated STS3215
 * registers, so the real serial driver reads the simulation byte for byte. On every read the
 * emulator asks for present position/velocity/load (from the latest physics step); goal positions
 * the driver writes become the scene's position-actuator targets. Units: servo ticks via the
 * LeRobot calibration of each motor (so101JointTicks: the body joints' zero at mid-range, the
 * gripper's 0 rad — the scene's closed command — at range_min and its upper limit at range_max),
 * load in 0.1 % of stall via the joint's torque constant.
 */
import { radiansPerTick, radiansToTicks, ticksToRadians, type JointTicks } from '../../src/calibration/lerobot.js';
import type { FeetechEmulator } from '../feetech/index.js';
import type { SimWorld } from './world.js';

export interface ServoBridgeJoint {
  id: number;
  /** Tick ↔ radian map of the joint's servo (so101JointTicks). */
  ticks: JointTicks;
  /** N·m per load register unit (0.1 % of stall). */
  torqueConstant: number;
}

export class MujocoServoBridge {
  private readonly q: Float64Array;
  private readonly qd: Float64Array;
  private readonly tau: Float64Array;
  private readonly targets: Float64Array;
  private readonly byId = new Map<number, number>();

  /** `joints` in the world's joint order (arm joints, then the gripper). */
  constructor(
    private readonly world: SimWorld,
    private readonly emulator: FeetechEmulator,
    private readonly joints: readonly ServoBridgeJoint[],
  ) {
    const n = world.jointNames.length;
    if (joints.length !== n) throw new RangeError(`the scene has ${n} joints, the bridge was given ${joints.length}`);
    this.q = new Float64Array(n);
    this.qd = new Float64Array(n);
    this.tau = new Float64Array(n);
    this.targets = new Float64Array(n);
    joints.forEach((j, i) => this.byId.set(j.id, i));
  }

  /** Install the emulator hooks; the scene's targets start at its present joint positions. */
  install(): void {
    this.world.readJoints(this.targets);
    this.emulator.setPhysics((servo) => {
      const i = this.byId.get(servo.id);
      if (i === undefined) return;
      this.sample();
      const j = this.joints[i]!;
      servo.setPresent({
        position: radiansToTicks(this.q[i]!, j.ticks),
        velocity: this.qd[i]! / radiansPerTick(j.ticks),
        load: this.tau[i]! / j.torqueConstant,
        moving: Math.abs(this.qd[i]!) > 1e-3,
      });
    });
    this.emulator.onWrite((servo) => {
      const i = this.byId.get(servo.id);
      if (i === undefined) return;
      this.targets[i] = ticksToRadians(servo.goalPosition, this.joints[i]!.ticks);
      this.world.setTargets(this.targets);
    });
  }

  private sample(): void {
    this.world.readJoints(this.q, this.qd);
    this.world.readTorques(this.tau);
  }
}
