import type { Header } from '../../../src/mcap/messages.js';

/**
 * A trajectory as a policy publishes it (a Python node fills lists): plain arrays. What the node
 * receives is still the rclnodejs shape (Float64Array), whatever the publisher used.
 */
export interface PolicyTrajectory {
  header: Header;
  joint_names: string[];
  points: {
    positions: number[];
    velocities: number[];
    accelerations: number[];
    effort: number[];
    time_from_start: { sec: number; nanosec: number };
  }[];
}
