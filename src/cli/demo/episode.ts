/**
 * One recorded demo episode: the scripted policy runs in the MuJoCo testbed; every tick the
 * online monitors (MonitorBank over the active safe clauses) see the frame. Gate on: the gate
 * evaluates each sample, a hold stops the arm mid-chunk and every later chunk is held. Gate off:
 * the monitors only record. Frames, ρ, chunks and gate transitions go to the episode's MCAP file,
 * labelled at the end by the task predicate (target in the box).
 */
import type { DlsIk, PolicyDefinition, SimWorld } from '../../../drivers/sim/index.js';
import { runEpisode } from '../../../drivers/sim/index.js';
import { startEpisodeInDir } from '../../episode/index.js';
import { DEFAULT_GATE_CONFIG, Gate, describeCause } from '../../gate/index.js';
import type { JointChunk } from '../../ports/index.js';
import { MonitorBank } from '../../runtime/monitor-bank.js';
import type { ClauseInstance } from '../../safety/index.js';
import type { SignalFrame } from '../../schema/signals.js';
import { ManualClock, ManualTimers } from '../../util/clock.js';
import { demoPlatform } from './clauses.js';

export type GateMode = 'off' | 'on';

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
}

/** The policy label recorded for a policy in a mode, e.g. `shove_bystander/gate-on`. */
export function modePolicy(policy: string, mode: GateMode): string {
  return `${policy}/gate-${mode}`;
}

export async function runDemoEpisode(input: DemoEpisodeInput): Promise<DemoEpisodeResult> {
  const { world, mode } = input;
  const policyLabel = modePolicy(input.policy.name, mode);
  const bank = MonitorBank.fromClauses(input.clauses, { minSampleInterval: 0.5 * world.scene.controlDt });
  const clauseIds = input.clauses.map((c) => c.clause.id);
  const timers = new ManualTimers(new ManualClock(0));
  const ep = await startEpisodeInDir(
    input.dir,
    { episodeId: input.episodeId, robotId: `sim-${world.scene.id}`, platform: demoPlatform(world.scene.id), task: input.task, policy: policyLabel, gateMode: mode, startedAt: input.startedAt, t0: 0, clauses: clauseIds },
    { timers },
  );
  const rec = ep.recorder;
  const gate = mode === 'on' ? new Gate({ ...DEFAULT_GATE_CONFIG, requiredSignals: bank.requiredSignals }) : null;
  let holdReason = '';
  let holdT = NaN;
  gate?.onEvent((e) => {
    const reason = describeCause(e.cause);
    rec.gateTransition(e.t, e.from, e.to, reason);
    if (e.to === 'hold' && holdReason === '') {
      holdReason = reason;
      holdT = e.t;
    }
  });
  const rho = new Float64Array(bank.count);
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
  const chunkGate = (chunk: JointChunk, _frame: SignalFrame, now: number): JointChunk | null => {
    rec.proposedChunk(now, chunk);
    const pass = gate === null || !gate.holding;
    if (pass) chunksExecuted++;
    else chunksHeld++;
    rec.executedChunk(now, chunk, chunk.id, pass ? 'executed' : 'held', 0);
    return pass ? chunk : null;
  };
  const dt = world.scene.controlDt;
  const result = runEpisode(world, input.ik, input.policy, {
    seed: input.seed,
    gate: chunkGate,
    ...(gate ? { monitor: (frame: SignalFrame, now: number) => (observe(frame, now), gate.holding ? 'hold' : 'continue') } : {}),
    onFrame: (frame, tick) => {
      const t = tick * dt + dt; // the same float the episode passes to the monitor hook
      observe(frame, t);
      rec.frame(frame);
      for (let i = 0; i < bank.count; i++) {
        const m = bank.margin(i);
        rho[i] = m;
        if (m < (minRho[i] ?? Infinity)) minRho[i] = m;
      }
      rec.robustness(t, rho);
    },
  });
  const end = result.ticks * dt;
  rec.label({ t: end, source: 'predicate', by: 'targetInBox', success: result.outcome.success, taskId: input.task, policy: policyLabel, note: result.outcome.reason });
  await ep.finish(end, 'completed');
  const violated: string[] = [];
  for (let i = 0; i < bank.count; i++) if ((minRho[i] ?? Infinity) < 0) violated.push(bank.name(i));
  return {
    episodeId: input.episodeId,
    path: ep.path,
    policy: input.policy.name,
    mode,
    success: result.outcome.success,
    violated,
    held: holdReason !== '',
    holdReason,
    holdT,
    chunksHeld,
    chunksExecuted,
  };
}
