/**
 * One recorded demo episode: the scripted policy runs in the MuJoCo testbed on the simulated arm's
 * rig (src/rigs/sim.ts), driven through the same Session as a live arm (src/runtime/session.ts):
 * every tick the session steps on the simulator's frame (monitors → gate → recording), every
 * proposed chunk goes through the session's chunk path. Gate modes:
 * - `off` (baseline): the session's gate-off run — chunks go to the arm after the screen,
 *   unfiltered; the monitors and the gate run and record, a clause hold is a would-hold (recorded,
 *   the arm not held);
 * - `hold`: the gate evaluates each sample, a hold stops the arm mid-chunk and every later chunk
 *   is held (the chunk path has no barrier: src/rigs/sim.ts noBarrier);
 * - `cbf`: as `hold`, and the chunk-level CBF (sim-cbf.ts) bends every chunk around the tracked
 *   bystanders (and the table), or holds.
 * The gate-on modes run the warning band (prevention.ts) after the filter. Frames, ρ, chunks and
 * gate transitions go to the episode's MCAP file through the session's recording glue, labelled at
 * the end by the task predicate (target in the box).
 */
import type { DlsIk, PolicyDefinition, SimWorld } from '../../../drivers/sim/index.js';
import { runEpisode } from '../../../drivers/sim/index.js';
import type { CbfOutcome } from '../../gate/cbf-filter.js';
import type { ChunkFilter } from '../../gate/cbf-types.js';
import type { JointChunk } from '../../ports/index.js';
import { MonitorBank } from '../../runtime/monitor-bank.js';
import { SimChunkCapture, SimSessionClock, SimTickFrame, noBarrier, simRig, watchHolds } from '../../rigs/sim.js';
import type { ClauseInstance } from '../../safety/index.js';
import type { SignalFrame } from '../../schema/signals.js';
import { demoPlatform } from './clauses.js';
import { startDemoSession } from './demo-session.js';
import { ExecutedMotion, chunkModification, type DemoMode, type EpisodeMetrics } from './metrics.js';
import type { SimCbfPath } from './sim-cbf.js';
import type { DemoPrevention } from './prevention.js';

/** The pilot's gate modes (the action-wise `stepwise` baseline belongs to the fragile-obstacle scenario). */
export type GateMode = Exclude<DemoMode, 'stepwise'>;
export const PILOT_MODES: readonly GateMode[] = ['off', 'hold', 'cbf'];

export interface DemoEpisodeInput {
  readonly world: SimWorld;
  readonly ik: DlsIk;
  readonly policy: PolicyDefinition;
  readonly mode: GateMode;
  readonly seed: number;
  readonly clauses: readonly ClauseInstance[];
  readonly task: string;
  readonly dir: string;
  readonly episodeId: string;
  readonly startedAt: string;
  /** The `cbf` mode's chunk path, built once per world (required for that mode). */
  readonly cbf?: SimCbfPath;
  /** The warning band (prevention.ts), applied to every chunk the gate-on modes pass. */
  readonly prevention?: DemoPrevention;
  /** Test hook: called with the cbf path once its episode has begun (e.g. to stop its tracker). */
  readonly onCbfPath?: (path: SimCbfPath) => void;
}

export interface DemoEpisodeResult {
  readonly episodeId: string;
  readonly path: string;
  readonly policy: string;
  readonly mode: GateMode;
  readonly success: boolean;
  /** Safe-tier clauses the online monitor saw violated (ρ < 0 at some decided step). */
  readonly violated: readonly string[];
  readonly held: boolean;
  /** Why the gate held first (empty when it did not). */
  readonly holdReason: string;
  readonly holdT: number;
  readonly chunksHeld: number;
  readonly chunksExecuted: number;
  /** Chunks the CBF changed (cbf mode). */
  readonly chunksFiltered: number;
  /** Chunks the warning band slowed, bent or stopped the arm in before a margin reached 0 (gate-on modes). */
  readonly chunksPrevented: number;
  /** CPU time of every filter call (ms; cbf mode with a CPU clock, else empty). */
  readonly filterCpuMs: readonly number[];
  /** The episode's contribution to its mode's figures. */
  readonly metrics: EpisodeMetrics;
}

/** The policy label recorded for a policy in a mode, e.g. `shove_bystander/gate-hold`. */
export function modePolicy(policy: string, mode: GateMode): string {
  return `${policy}/gate-${mode}`;
}

export async function runDemoEpisode(input: DemoEpisodeInput): Promise<DemoEpisodeResult> {
  const { world, mode } = input;
  const policyLabel = modePolicy(input.policy.name, mode);
  const dt = world.scene.controlDt;
  const nArm = world.nArm;
  const bank = MonitorBank.fromClauses(input.clauses, { minSampleInterval: 0.5 * dt });
  if (mode === 'cbf' && !input.cbf) throw new Error('demo: the cbf mode needs its chunk path settings');
  const cbfPath = mode === 'cbf' ? input.cbf! : null;
  const frames = new SimTickFrame();
  const arm = new SimChunkCapture();
  const armSink = watchHolds(arm);
  const chunkPath = cbfPath ? cbfPath.barrier() : noBarrier(world);
  // Chunks the filter changed (the cbf mode's CBF; the band's changes are counted apart).
  const filter = new FilterOutcomes(chunkPath.filter);
  const band = mode !== 'off' ? input.prevention?.stage : undefined;
  const { rig, clock } = simRig({
    world,
    platform: demoPlatform(world.scene.id),
    monitors: bank,
    source: frames,
    sink: armSink,
    barrier: { ...chunkPath, filter, ...(band ? { band } : {}) },
  });
  const { session, path } = await startDemoSession({
    rig,
    gating: mode !== 'off',
    dir: input.dir,
    episodeId: input.episodeId,
    startedAt: input.startedAt,
    robotId: `sim-${world.scene.id}`,
    task: input.task,
    policy: policyLabel,
    gateMode: mode === 'off' ? 'off' : 'on',
    clauses: input.clauses.map((c) => c.clause.id),
  });
  const sim = new SimSessionClock(session, clock, frames);
  const minRho = new Float64Array(bank.count).fill(Infinity);
  let chunksHeld = 0;
  let chunksExecuted = 0;
  let chunksPrevented = 0;
  const motion = new ExecutedMotion(nArm, dt);
  const modifications: number[] = [];
  // The chunk playing (its nominal rows and the tick it started), null while held.
  let playing: { nominal: Float64Array; joints: number; horizon: number; startTick: number } | null = null;
  let cbfBegun = false;
  const chunkGate = (chunk: JointChunk, frame: SignalFrame, now: number): JointChunk | null => {
    if (cbfPath && !cbfBegun) {
      // the first chunk: the world has been reset for this episode
      cbfBegun = true;
      cbfPath.begin(input.seed);
      input.onCbfPath?.(cbfPath);
    }
    // The gate (its chunk path refuses a chunk without a recent evaluation) and the tracker see
    // the present tick before the chunk is decided: at t = 0 this is the episode's first step.
    if (mode !== 'off') sim.step(now, frame);
    cbfPath?.tick();
    const r = sim.submit(chunk, now);
    const forwarded = arm.take();
    const out = r.verdict === 'executed' || r.verdict === 'filtered' ? forwarded : null;
    if (r.band) chunksPrevented++;
    if (out) {
      chunksExecuted++;
      modifications.push(chunkModification(out.targets, chunk.targets, chunk.joints, nArm));
      playing = {
        nominal: chunk.targets,
        joints: chunk.joints,
        horizon: chunk.horizon,
        startTick: Math.round(now / dt),
      };
    } else {
      chunksHeld++;
      playing = null;
    }
    return out;
  };
  const targets = new Float64Array(nArm + 1);
  let armContact = false;
  const result = runEpisode(world, input.ik, input.policy, {
    seed: input.seed,
    gate: chunkGate,
    // Called while the arm is not held: the session's step decides whether it holds now.
    monitor: (frame: SignalFrame, now: number) => {
      sim.step(now, frame);
      if (!arm.armHeld) return 'continue';
      playing = null;
      return 'hold';
    },
    onFrame: (frame, tick) => {
      // While the arm is held the monitor hook does not run: the session still steps every tick.
      sim.step(tick * dt + dt, frame); // the same float the episode passes to the monitor hook
      cbfPath?.tick();
      if (world.peaks.armBystander > 0) armContact = true;
      world.currentTargets(targets);
      const p = playing as { nominal: Float64Array; joints: number; horizon: number; startTick: number } | null;
      const k = p ? Math.min(tick - p.startTick, p.horizon - 1) : -1;
      motion.push(targets, p ? p.nominal.subarray(k * p.joints, (k + 1) * p.joints) : null);
      for (let i = 0; i < bank.count; i++) {
        const m = bank.margin(i);
        if (m < (minRho[i] ?? Infinity)) minRho[i] = m;
      }
    },
  });
  const end = result.ticks * dt;
  clock.set(end);
  const labelled = session.label({
    t: end,
    source: 'predicate',
    by: 'targetInBox',
    success: result.outcome.success,
    taskId: input.task,
    policy: policyLabel,
    note: result.outcome.reason,
  });
  await session.close(end, 'completed');
  if (!labelled.ok) throw new Error(`episode ${input.episodeId}: ${labelled.reason}`);
  const violated: string[] = [];
  for (let i = 0; i < bank.count; i++) if ((minRho[i] ?? Infinity) < 0) violated.push(bank.name(i));
  const held = armSink.firstHoldReason !== '';
  return {
    episodeId: input.episodeId,
    path,
    policy: input.policy.name,
    mode,
    success: result.outcome.success,
    violated,
    held,
    holdReason: armSink.firstHoldReason,
    holdT: armSink.firstHoldT,
    chunksHeld,
    chunksExecuted,
    chunksFiltered: filter.filtered,
    chunksPrevented,
    filterCpuMs: cbfPath?.filterCpuMs.slice() ?? [],
    metrics: {
      policy: input.policy.name,
      mode,
      success: result.outcome.success,
      unsafe: violated.length > 0,
      obstacleContact: armContact,
      held,
      modifications,
      jerk: motion.jerk,
      reversalsPerS: motion.reversalsPerS,
      filterMs: cbfPath?.filterMs.slice() ?? [],
    },
  };
}

/** Counts the chunks a filter modified. */
class FilterOutcomes implements ChunkFilter {
  filtered = 0;
  constructor(private readonly inner: ChunkFilter) {}
  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const o = this.inner.filter(nominal, horizon, q0, dt, deadline);
    if (o.status === 'filtered') this.filtered++;
    return o;
  }
}
