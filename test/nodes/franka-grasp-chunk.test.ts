/**
 * A Franka trajectory that commands the hand to close part-way (its finger joints beside the arm's)
 * is filtered in two parts, as a SO-101 grasp chunk is: the rows before the close without the
 * held-tilt bound, the rows from the close on with it, the pose before the close the reference.
 * Before, the finger joints were refused ('expected 7 joints') and a trajectory without them was
 * filtered by the gripper's state alone — open when it was proposed — so the rows after the close
 * (here a 34° pitch of the hand) went to the controller unbounded. Inline and in the worker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { toStamp } from '../../src/mcap/messages.js';
import { waitUntil } from '../support/run-session.js';
import { frankaTestConfig } from './support/franka-config.js';
import { frankaRig } from './support/franka-rig.js';
import { FR3_JOINTS, FR3_READY, frankaWorld, publishStates } from './support/franka-world.js';
import { fr3ToolTilt } from './support/fr3-tilt.js';
import type { PolicyTrajectory } from './support/policy.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const ROWS = 20;
const CLOSE_AT = 10;
/** Joint 6 turned 0.6 rad (34°) over the rows after the close: the hand pitches with what it grasped. */
function graspAndPitch(id: string, stamp: number, fingers: boolean): PolicyTrajectory {
  const points = Array.from({ length: ROWS }, (_, k) => {
    const pitch = k < CLOSE_AT ? 0 : (0.6 * (k - CLOSE_AT + 1)) / (ROWS - CLOSE_AT);
    const arm = FR3_READY.map((q, j) => (j === 5 ? q + pitch : q));
    // each finger at half the width: open 8 cm, then commanded shut
    const finger = k < CLOSE_AT ? 0.04 : 0;
    return {
      positions: fingers ? [...arm, finger, finger] : arm,
      velocities: [],
      accelerations: [],
      effort: [],
      time_from_start: toStamp((k + 1) * 0.05),
    };
  });
  const joint_names = fingers ? [...FR3_JOINTS, 'fr3_finger_joint1', 'fr3_finger_joint2'] : [...FR3_JOINTS];
  return { header: { stamp: toStamp(stamp), frame_id: id }, joint_names, points };
}

const modes: [string, boolean][] = [
  ['inline', false],
  ['worker', true],
];

describe.each(modes)('Franka node: a trajectory that closes the hand part-way (%s)', (_mode, inWorker) => {
  async function node() {
    const config = frankaTestConfig({ task: 'sim-pick-cup-into-box' });
    const rig = frankaRig(config, (timers) => (inWorker ? { filterWorker: { timers } } : {}));
    const worker = rig.parts.filterWorker;
    expect(worker !== undefined).toBe(inWorker);
    if (worker) {
      cleanups.push(() => worker.close());
      await worker.start();
    }
    const world = frankaWorld(rig.graph, config);
    publishStates(world, rig.timers, 50); // hand open: not holding
    expect(rig.parts.gate.state).toBe('armed');
    return { rig, world };
  }

  it('rows from the close on are bent within the tilt bound; the rows before it go unchanged', async () => {
    const { rig, world } = await node();
    const sent = world.toController.length;
    world.proposer.publish(graspAndPitch('grasp', rig.clock.now(), true));
    await waitUntil(() => world.results.length > 0, 30, 'the answer');
    expect(world.results[0]).toMatchObject({ verdict: 'filtered' });
    const out = world.toController.slice(sent).at(-1)!;
    expect(out.joint_names).toEqual(FR3_JOINTS); // the fingers are never sent to the arm's controller
    expect(out.points).toHaveLength(ROWS);
    const tilt = fr3ToolTilt(FR3_READY); // the reference: the pose before the close
    const tilts = out.points.map((p) => tilt(p.positions));
    for (let k = 0; k < CLOSE_AT; k++)
      out.points[k]!.positions.forEach((q, j) => expect(q).toBeCloseTo(FR3_READY[j]!, 6));
    expect(Math.max(...tilts.slice(CLOSE_AT))).toBeLessThanOrEqual(13.5 + 0.05);
    expect(Math.max(...tilts.slice(CLOSE_AT))).toBeGreaterThan(5); // bent, not held
  }, 60_000);

  it('the same motion without the finger command is filtered by the open hand alone: forwarded unbounded', async () => {
    const { rig, world } = await node();
    const sent = world.toController.length;
    world.proposer.publish(graspAndPitch('no-fingers', rig.clock.now(), false));
    await waitUntil(() => world.results.length > 0, 30, 'the answer');
    expect(world.results[0]).toMatchObject({ verdict: 'executed' });
    const tilt = fr3ToolTilt(FR3_READY);
    const out = world.toController.slice(sent).at(-1)!;
    expect(Math.max(...out.points.map((p) => tilt(p.positions)))).toBeGreaterThan(30);
  }, 60_000);
});
