/**
 * Issue 14 item 3 on the Franka node: proposed trajectories are filtered in a real worker thread
 * (WorkerChunkFilterService built from the rig's FrankaFilterRecipe), never on the node's control
 * thread; the answer is re-checked there and committed to the controller. A worker killed for real
 * is a typed fault: the gate holds, ~/release is refused while it is down and accepted once the
 * worker runs again. The grip the held-tilt bound follows travels in each snapshot as plain data.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OffThreadChunkPath } from '../../src/runtime/off-thread-chunk-path.js';
import type { TriggerResponse } from '../../src/mcap/messages.js';
import type { FrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import { episodeGateRecords, filterWorkerFaultRecorded, waitUntil } from '../support/run-session.js';
import { countFilterCalls } from '../support/filter-calls.js';
import { frankaTestConfig } from './support/franka-config.js';
import { closeLabelledEpisode, frankaRig } from './support/franka-rig.js';
import { FR3_READY, frankaWorld, linearTrajectory, publishStates } from './support/franka-world.js';
import { fr3ToolTilt } from './support/fr3-tilt.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/**
 * The node with its chunk filter in a worker (the entry point's wiring, on the rig's manual
 * timers), recording episodes when `episodesDir` is given.
 */
async function workerNode(overrides: Partial<FrankaNodeConfig> = {}) {
  const config = frankaTestConfig(overrides);
  const rig = frankaRig(config, (timers) => ({
    filterWorker: { timers },
    ...(config.episodesDir !== undefined ? { recording: { timers } } : {}),
  }));
  const worker = rig.parts.filterWorker!;
  cleanups.push(() => worker.close());
  await worker.start();
  const world = frankaWorld(rig.graph, config);
  const path = rig.parts.session.chunks;
  if (!(path instanceof OffThreadChunkPath)) throw new Error('the Franka node has no off-thread chunk path');
  // the node's own filter: with a worker it must never run on this thread
  const onControlThread = countFilterCalls(rig.parts.rig.barrier);
  const release = () =>
    world.node
      .createClient<Record<string, never>, TriggerResponse>('std_srvs/srv/Trigger', '/armguard/release')
      .call({});
  return { config, rig, world, worker, path, onControlThread, release };
}

/** Joint 6 turned 0.6 rad (34°): the hand pitches. */
const TILTED = FR3_READY.map((q, j) => (j === 5 ? q + 0.6 : q));

describe('Franka node: the chunk filter in a worker thread (chunk_filter worker)', () => {
  it('a trajectory is filtered in the worker (not on the control thread), re-checked and committed; the grip reaches the worker as data', async () => {
    const n = await workerNode({ task: 'sim-pick-cup-into-box' });
    // fingers at 4 cm since the state began: holding (unsure counts as holding)
    publishStates(n.world, n.rig.timers, 50, { width: 0.04 });
    expect(n.rig.parts.gate.state).toBe('armed');
    const before = n.world.toController.length;
    n.world.proposer.publish(
      linearTrajectory('tilt-held', n.rig.clock.now(), FR3_READY, TILTED, { steps: 20, dt: 0.05 }),
    );
    // the decision is not made on this thread: nothing answered, nothing sent yet
    expect(n.path.filtering).toBe(true);
    expect(n.world.results).toHaveLength(0);
    await waitUntil(() => n.world.results.length > 0, 30, 'the answer from the worker');
    expect(n.world.results[0]).toMatchObject({ verdict: 'filtered' });
    expect(n.onControlThread.calls).toBe(0);
    expect(n.path.stats).toMatchObject({ submitted: 1, committed: 1 });
    const sent = n.world.toController.slice(before).at(-1)!;
    const tilt = fr3ToolTilt(FR3_READY);
    // the held-tilt bound ran in the worker from the snapshot's grip: bent within τ − ε = 13.5°
    const bent = sent.points.map((p) => tilt(p.positions));
    expect(Math.max(...bent)).toBeLessThanOrEqual(13.5 + 0.05);
    expect(Math.max(...bent)).toBeGreaterThan(5);
  }, 60_000);

  it('the grip changes while the worker filters (the hand closes on the cup): the answer is filtered again with the tilt bound before it is committed', async () => {
    const n = await workerNode({ task: 'sim-pick-cup-into-box' });
    publishStates(n.world, n.rig.timers, 50); // hand open: not holding
    const before = n.world.toController.length;
    n.world.proposer.publish(linearTrajectory('tilt', n.rig.clock.now(), FR3_READY, TILTED, { steps: 20, dt: 0.05 }));
    expect(n.worker.fault).toBeNull();
    // meanwhile, on the node's clock: the fingers close to 4 cm and stay there (holding from the plateau)
    publishStates(n.world, n.rig.timers, 5, { width: 0.06 });
    publishStates(n.world, n.rig.timers, 80, { width: 0.04 });
    await waitUntil(() => n.world.results.length > 0, 30, 'the answer');
    expect(n.path.stats.refiltered).toBe(1);
    expect(n.world.results[0]).toMatchObject({ verdict: 'filtered' });
    const tilt = fr3ToolTilt(FR3_READY);
    const sent = n.world.toController.slice(before).at(-1)!;
    expect(Math.max(...sent.points.map((p) => tilt(p.positions)))).toBeLessThanOrEqual(13.5 + 0.05);
  }, 60_000);

  it('killed: a typed fault holds, ~/release is refused while it is down; started again (recorded in the episode), a release arms and trajectories are committed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-franka-worker-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const n = await workerNode({ episodesDir: dir });
    await n.rig.parts.session.start(n.rig.clock.now());
    publishStates(n.world, n.rig.timers, 50);
    expect(n.rig.parts.gate.state).toBe('armed');

    await (n.worker as unknown as { worker: Worker }).worker.terminate();
    await waitUntil(() => n.worker.fault !== null, 10, 'the worker fault');
    publishStates(n.world, n.rig.timers, 5);
    expect(n.rig.parts.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'disconnect', source: 'chunk filter worker', detail: expect.stringMatching(/exited/) },
    });
    const refused = await n.release();
    expect(refused.success).toBe(false);
    expect(n.rig.parts.gate.state).toBe('hold');
    // a trajectory meanwhile is held, never sent
    const sentBefore = n.world.toController.length;
    n.world.proposer.publish(
      linearTrajectory('while-down', n.rig.clock.now(), FR3_READY, FR3_READY, { steps: 10, dt: 0.05 }),
    );
    expect(n.world.results.at(-1)).toMatchObject({ id: 'while-down', verdict: 'held' });
    expect(n.world.toController.slice(sentBefore).every((m) => m.points.length === 0)).toBe(true);

    // the back-off (0.5 s on the node's timers) passes with the arm still held and its fault raised every step
    publishStates(n.world, n.rig.timers, 600);
    expect(n.rig.parts.gate.state).toBe('hold');
    await waitUntil(() => n.worker.restarts === 1 && n.worker.fault === null, 30, 'the worker started again');
    // the gate's fault quiet period passes with the worker running (no fault raised any more)
    publishStates(n.world, n.rig.timers, 1100);
    const released = await n.release();
    expect(released, released.message).toMatchObject({ success: true });
    expect(n.rig.parts.gate.state).not.toBe('hold');

    const sent = n.world.toController.length;
    const shifted = FR3_READY.map((q, j) => (j === 0 ? q + 0.1 : q));
    n.world.proposer.publish(linearTrajectory('after', n.rig.clock.now(), FR3_READY, shifted, { steps: 20, dt: 0.05 }));
    await waitUntil(() => n.world.results.length > 1 && n.path.filtering === false, 30, 'the answer after the restart');
    expect(n.world.results.at(-1)).toMatchObject({ verdict: 'executed' });
    expect(n.world.toController.slice(sent).at(-1)!.points).toHaveLength(20);
    expect(n.onControlThread.calls).toBe(0);

    // the episode has the fault's hold and the restart
    const file = await closeLabelledEpisode(n.rig, dir);
    const records = await episodeGateRecords(join(dir, file));
    expect(filterWorkerFaultRecorded(records)).toEqual({ hold: true, restart: true });
  }, 60_000);
});
