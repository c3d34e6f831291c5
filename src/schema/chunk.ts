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
}
