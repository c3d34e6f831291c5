/**
 * One recorded demo episode: the scripted policy runs in the MuJoCo testbed; every tick the
 * online monitors (MonitorBank over the active safe clauses) see the frame. Gate modes:
 * - `off` (baseline): the monitors only record;
 * - `hold`: the gate evaluates each sample, a hold stops the arm mid-chunk and every later chunk
 *   is held (monitors + hold only);
 * - `cbf`: as `hold`, and every chunk goes through the hardware chunk path (sim-cbf.ts): the
 *   chunk-level CBF bends it around the tracked bystanders (and the table), or holds.
 * Frames, ρ, chunks and gate transitions go to the episode's MCAP file through the session's
 * recording glue (src/runtime/episode-tap.ts, as a live run records them), labelled at the end by the
 * task predicate (target in the box). The monitors step inside the simulator's own tick (its
 * monitor hook) and the `off` mode has no gate at all, so the demo drives the tap, not a Session.
 */
import type { DlsIk, PolicyDefinition, SimWorld } from '../../../drivers/sim/index.js';
import { runEpisode } from '../../../drivers/sim/index.js';
import { startEpisodeInDir } from '../../episode/index.js';
import { DEFAULT_GATE_CONFIG, Gate, describeCause } from '../../gate/index.js';
import type { JointChunk } from '../../ports/index.js';
import { EpisodeTap } from '../../runtime/episode-tap.js';
import { MonitorBank } from '../../runtime/monitor-bank.js';
import type { ClauseInstance } from '../../safety/index.js';
import type { SignalFrame } from '../../schema/signals.js';
import { ManualClock, ManualTimers } from '../../util/clock.js';
import { demoPlatform } from './clauses.js';
import { ExecutedMotion, chunkModification, type DemoMode, type EpisodeMetrics } from './metrics.js';
import type { SimCbfPath } from './sim-cbf.js';
import { describeBand, type DemoPrevention } from './prevention.js';

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
  const bank = MonitorBank.fromClauses(input.clauses, { minSampleInterval: 0.5 * world.scene.controlDt });
  const clauseIds = input.clauses.map((c) => c.clause.id);
  const timers = new ManualTimers(new ManualClock(0));
  if (mode === 'cbf' && !input.cbf) throw new Error('demo: the cbf mode needs its chunk path settings');
  const ep = await startEpisodeInDir(
    input.dir,
    {
      episodeId: input.episodeId,
      robotId: `sim-${world.scene.id}`,
      platform: demoPlatform(world.scene.id),
      task: input.task,
      policy: policyLabel,
      gateMode: mode === 'off' ? 'off' : 'on',
      startedAt: input.startedAt,
      t0: 0,
      clauses: clauseIds,
    },
    { timers },
  );
  const rec = ep.recorder;
  const tap = new EpisodeTap(bank, () => rec);
  const gate = mode !== 'off' ? new Gate({ ...DEFAULT_GATE_CONFIG, requiredSignals: bank.requiredSignals }) : null;
  let holdReason = '';
  let holdT = NaN;
  gate?.onEvent((e) => {
    tap.gateTransition(e);
    if (e.to === 'hold' && holdReason === '') {
      holdReason = describeCause(e.cause);
      holdT = e.t;
    }
  });
  const minRho = new Float64Array(bank.count).fill(Infinity);
  let evaluatedAt = NaN;
  const observe = (frame: SignalFrame, t: number): void => {
    if (evaluatedAt === t) return;
    evaluatedAt = t;
    bank.push(t, frame);
    gate?.evaluate(t, bank, frame);
  };
  let chunksHeld = 0;
  let chunksExecuted = 0;
  let chunksFiltered = 0;
  let chunksPrevented = 0;
  const band = mode !== 'off' ? input.prevention : undefined;
  const dt = world.scene.controlDt;
  const nArm = world.nArm;
  const motion = new ExecutedMotion(nArm, dt);
  const modifications: number[] = [];
  // The chunk playing (its nominal rows and the tick it started), null while held.
  let playing: { nominal: Float64Array; joints: number; horizon: number; startTick: number } | null = null;
  let cbfPath: SimCbfPath | null = null;
  let cbfBegun = false;
  const chunkGate = (chunk: JointChunk, frame: SignalFrame, now: number): JointChunk | null => {
    tap.proposed(now, chunk);
    let out: JointChunk | null;
    if (mode === 'cbf') {
      if (!cbfBegun) {
        // the first chunk: the world has been reset for this episode
        cbfBegun = true;
        cbfPath = input.cbf!;
        cbfPath.begin(gate!, input.seed);
        input.onCbfPath?.(cbfPath);
      }
      // The gate and the tracker see the present tick before the chunk is decided.
      observe(frame, now);
      cbfPath!.tick();
      out = cbfPath!.submit(chunk, now);
      if (cbfPath!.last?.verdict === 'filtered') chunksFiltered++;
    } else {
      out = gate === null || !gate.holding ? chunk : null;
    }
    if (out && band) {
      const b = band.filter(out, frame);
      if (b.outcome.status !== 'unchanged') {
        chunksPrevented++;
        rec.gateTransition(now, gate!.state, gate!.state, describeBand(b.outcome));
        out = b.chunk;
      }
    }
    if (out) {
      chunksExecuted++;
      const mod = chunkModification(out.targets, chunk.targets, chunk.joints, nArm);
      modifications.push(mod);
      const verdict = out === chunk ? 'executed' : 'filtered';
      tap.forwarded(now, chunk, {
        id: chunk.id,
        verdict,
        code: verdict === 'executed' ? 'ok' : 'filtered',
        reason: 'demo gate',
        targets: out.targets,
        modification: mod,
      });
      playing = {
        nominal: chunk.targets,
        joints: chunk.joints,
        horizon: chunk.horizon,
        startTick: Math.round(now / dt),
      };
    } else {
      chunksHeld++;
      tap.held(now, chunk);
      playing = null;
    }
    return out;
  };
  const targets = new Float64Array(nArm + 1);
  let armContact = false;
  const result = runEpisode(world, input.ik, input.policy, {
    seed: input.seed,
    gate: chunkGate,
    ...(gate
      ? {
          monitor: (frame: SignalFrame, now: number) => {
            observe(frame, now);
            if (!gate.holding) return 'continue';
            playing = null;
            return 'hold';
          },
        }
      : {}),
    onFrame: (frame, tick) => {
      const t = tick * dt + dt; // the same float the episode passes to the monitor hook
      observe(frame, t);
      cbfPath?.tick();
      if (world.peaks.armBystander > 0) armContact = true;
      world.currentTargets(targets);
      const p = playing as { nominal: Float64Array; joints: number; horizon: number; startTick: number } | null;
      const k = p ? Math.min(tick - p.startTick, p.horizon - 1) : -1;
      motion.push(targets, p ? p.nominal.subarray(k * p.joints, (k + 1) * p.joints) : null);
      tap.step(t, frame);
      for (let i = 0; i < bank.count; i++) {
        const m = bank.margin(i);
        if (m < (minRho[i] ?? Infinity)) minRho[i] = m;
      }
    },
  });
  const end = result.ticks * dt;
  rec.label({
    t: end,
    source: 'predicate',
    by: 'targetInBox',
    success: result.outcome.success,
    taskId: input.task,
    policy: policyLabel,
    note: result.outcome.reason,
  });
  await ep.finish(end, 'completed');
  const violated: string[] = [];
  for (let i = 0; i < bank.count; i++) if ((minRho[i] ?? Infinity) < 0) violated.push(bank.name(i));
  const held = holdReason !== '';
  return {
    episodeId: input.episodeId,
    path: ep.path,
    policy: input.policy.name,
    mode,
    success: result.outcome.success,
    violated,
    held,
    holdReason,
    holdT,
    chunksHeld,
    chunksExecuted,
    chunksFiltered,
    chunksPrevented,
    filterCpuMs: (cbfPath as SimCbfPath | null)?.filterCpuMs.slice() ?? [],
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
      filterMs: (cbfPath as SimCbfPath | null)?.filterMs.slice() ?? [],
    },
  };
}
