/** The FR3 hand's tilt, computed by forward kinematics, for the held-tilt tests. */
import { FR3_DESCRIPTION, ForwardKinematics } from '../../../src/kinematics/index.js';

/**
 * The angle (deg) between the hand's tool direction at q and its direction at `reference` (the
 * third row of the TCP frame's row-major rotation): how far the hand tilted from that pose.
 */
export function fr3ToolTilt(reference: ArrayLike<number>): (q: ArrayLike<number>) => number {
  const fk = new ForwardKinematics(FR3_DESCRIPTION.chain);
  const o = fk.offset(FR3_DESCRIPTION.endEffectors.franka_hand!.tcp.frame);
  fk.compute(reference);
  const v = [fk.frames[o + 6]!, fk.frames[o + 7]!, fk.frames[o + 8]!];
  return (q) => {
    fk.compute(q);
    const bz = fk.frames[o + 6]! * v[0]! + fk.frames[o + 7]! * v[1]! + fk.frames[o + 8]! * v[2]!;
    return (Math.acos(Math.min(1, bz)) * 180) / Math.PI;
  };
}
