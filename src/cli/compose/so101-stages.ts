/**
 * The SO-101's observable state for the stage events (issue 18): the TCP from the last joint read
 * through the SO-101 kinematics (gripper_frame_link, the signal mapping's forward kinematics) and
 * the grasp from the gripper servo's load (the mapping's gripper_contact). The jaw's opening in
 * metres is not calibrated, so no aperture is given. A read older than `maxAge` is not usable.
 */
import type { So101Arm } from '../../../drivers/so101/arm.js';
import type { LiveStageReading } from '../../runtime/live-semantic.js';

export function so101StageReader(arm: So101Arm, maxAge: number): (now: number) => LiveStageReading | undefined {
  const q = new Float64Array(arm.joints);
  const p = new Float64Array(3);
  const ee: [number, number, number] = [NaN, NaN, NaN];
  const reading = { ee, gripperAperture: NaN, grasped: false };
  return (now) => {
    const stamp = arm.readPositions(q);
    if (!(now - stamp <= maxAge)) return undefined;
    arm.mapping.tcp(p);
    ee[0] = p[0]!;
    ee[1] = p[1]!;
    ee[2] = p[2]!;
    reading.grasped = arm.mapping.gripping;
    return reading;
  };
}
