/**
 * A two-joint pan–tilt arm for the orientation and held-tilt tests: pan about z, tilt about the
 * panned x-axis; at q = 0 the tool's z axis is world z (upright), so the tool's tilt from vertical
 * is |q_tilt| — the hand-computed reference those tests compare against.
 */
import type { ChainSpec } from '../../../src/kinematics/chain.js';

export const PAN_TILT_CHAIN: ChainSpec = {
  name: 'pan-tilt',
  joints: [
    { name: 'pan', parent: 0, xyz: [0, 0, 0.1], rpy: [0, 0, 0], lower: -3, upper: 3 },
    { name: 'tilt', parent: 1, xyz: [0, 0, 0.1], rpy: [0, Math.PI / 2, 0], lower: -3, upper: 3 },
  ],
  fixedFrames: [{ name: 'tool', parent: 2, xyz: [0, 0, 0.05], rpy: [0, -Math.PI / 2, 0] }],
};

/** The tool frame's index in the chain's frames. */
export const PAN_TILT_TOOL = 3;
