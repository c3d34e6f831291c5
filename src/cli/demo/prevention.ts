/**
 * The demo's warning band (issue 15): the gate-on modes run every proposed chunk through the
 * chunk warning band of src/gate/warning-band.ts before it reaches the simulated arm, with the
 * scene's own numbers — joint ranges, servo stiffness and stall torque read from the MuJoCo model,
 * and the contact constants below — and the arm's geometry from drivers/sim's SimChunkMotion.
 */
import type { Mujoco, SimWorld } from '../../../drivers/sim/index.js';
import { SimChunkMotion } from '../../../drivers/sim/chunk-motion.js';
import { WarningBand, bandClauses, type ApproachModel, type BandOutcome } from '../../gate/warning-band.js';
import type { JointChunk } from '../../ports/index.js';
import { bandStateOf, type ChunkBandStage } from '../../gate/band-stage.js';
// one description of a band outcome for the demo and the runtime's chunk path
export { describeBand } from '../../gate/band-stage.js';
import type { ClauseInstance } from '../../safety/index.js';
import type { SignalFrame } from '../../schema/signals.js';
import { OBJ_JOINT } from '../../../drivers/sim/world.js';

/**
 * Contact prediction for the simulated arms. contactDistance 1 cm: the MuJoCo geoms' margin plus
 * the finger pads' travel; impactGain and pressStiffness: a strike of 1 m/s and a target 2 cm into
 * the table each predict the 200 N tier's limit.
 */
export const SIM_APPROACH: ApproachModel = { contactDistance: 0.01, impactGain: 200, pressStiffness: 10_000 };
/**
 * Run-on of the simulated servos past a stopped target: 70 ms. The position servos ramp to a new
 * target over one 30 Hz tick and lag it by about two ticks at speed (drivers/sim/world.ts; a held
 * SO-101 arm ran on 6 mm at 0.1 m/s in the loose-grasp episode).
 */
export const SIM_RUN_ON = 0.07;
/** Target–furniture contact force (N) above which the held target rests on a support (the sim's any-touch level). */
const SUPPORT_FORCE = 0.5;
/** A bent target stays 0.02 rad (~1°) inside the joint's range. */
const BEND_MARGIN = 0.02;
/** Shoulder-to-wrist reach of the arm (m), over which a target driven into the table loads the joint. */
const SURFACE_LEVER = { so101: 0.25, panda: 0.6 } as const;

export interface DemoPreventionResult {
  readonly chunk: JointChunk;
  readonly outcome: BandOutcome;
}

export class DemoPrevention {
  readonly band: WarningBand;
  private readonly motion: SimChunkMotion;
  private readonly q0: Float64Array;

  constructor(
    mj: Mujoco,
    private readonly world: SimWorld,
    clauses: readonly ClauseInstance[],
  ) {
    const m = world.model;
    const scene = world.scene;
    // allocate first: the model's arrays are views into the WebAssembly memory, which an allocation may move
    this.motion = new SimChunkMotion(mj, world);
    const range = m.jnt_range as Float64Array;
    const frc = m.jnt_actfrcrange as Float64Array;
    const ids = scene.armJoints.map((n) => mj.mj_name2id(m, OBJ_JOINT, n));
    const gain = m.actuator_gainprm as Float64Array;
    // position actuators: gainprm[0] = kp; the arm's actuators come first in every scene
    let kp = 0;
    for (let a = 0; a < scene.armJoints.length; a++) kp = Math.max(kp, gain[10 * a] ?? 0);
    this.band = new WarningBand(this.motion, {
      clauses: bandClauses(clauses),
      armJoints: world.nArm,
      runOn: SIM_RUN_ON,
      approach: SIM_APPROACH,
      load: {
        qmin: ids.map((j) => range[2 * j] ?? -Math.PI),
        qmax: ids.map((j) => range[2 * j + 1] ?? Math.PI),
        stiffness: kp,
        stallTorque: Math.max(...ids.map((j) => frc[2 * j + 1] ?? Infinity)),
        bendMargin: BEND_MARGIN,
        surfaceLever: scene.id === 'panda' ? SURFACE_LEVER.panda : SURFACE_LEVER.so101,
      },
      grip: {
        column: world.nArm,
        open: scene.gripper.open,
        releaseDelta: 0.5 * Math.abs(scene.gripper.open - scene.gripper.closed),
      },
    });
    this.q0 = new Float64Array(world.nArm + 1);
  }

  /** The chunk the band lets through from the arm's present position and the frame's grip state. */
  filter(chunk: JointChunk, frame: SignalFrame): DemoPreventionResult {
    this.world.readJoints(this.q0);
    const o = this.band.filter(
      chunk.targets,
      chunk.horizon,
      chunk.joints,
      chunk.dt,
      this.q0,
      bandStateOf(frame, SUPPORT_FORCE),
    );
    return {
      chunk: o.status === 'unchanged' ? chunk : { ...chunk, targets: Float64Array.from(o.targets) },
      outcome: o,
    };
  }

  /** The band as the stage of a rig's chunk path (after the filter, before the arm): what the demo's episodes run. */
  get stage(): ChunkBandStage {
    return { band: this.band, supportForce: SUPPORT_FORCE };
  }

  dispose(): void {
    this.motion.dispose();
  }
}
