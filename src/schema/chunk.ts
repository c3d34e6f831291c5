/**
 * The in-memory action chunk (design §7): what a policy proposes, the gate checks and a command sink
 * executes. The gate calls it `GateChunk`, the ports `JointChunk`. Pure.
 */

/** H rows of n joint targets (rad), row-major. */
export interface JointChunk {
  readonly id: string;
  /** Seconds (monotonic) at which the policy produced it. */
  readonly stamp: number;
  readonly horizon: number;
  readonly joints: number;
  /** Step period in seconds. */
  readonly dt: number;
  readonly targets: Float64Array;
  /**
   * Per row, the distance between the fingers (m) the policy commands beside the joints, for an arm
   * whose gripper is not a chunk column (a Franka trajectory carrying its finger joints); absent:
   * the chunk commands no gripper. Never sent to the arm's controller; the held-tilt bound reads it.
   */
  readonly gripperWidth?: Float64Array;
}
