/**
 * The only path from a proposed chunk to the CommandSink (design §7, §12): screen → gate state →
 * present joint state → CBF filter → warning band (when the platform has one) → re-check of the
 * chunk as it would go to the arm (CommitRecheck: limits, motion bounds, h ≥ −δ, the held object's
 * tilt from the committed grasp reference — the band may have slowed, bent or frozen rows the CBF
 * passed) → sink. Whatever fails, the chunk is rejected or held and never forwarded; what is
 * forwarded is a copy of the filter's output (or of a nominal chunk the filter found already safe),
 * as the band left it. Faults become gate holds; nothing throws out of `submit`.
 */
import { bandRecord, describeBand } from '../gate/band-stage.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import { describeRejection } from '../gate/chunk.js';
import { CommitRecheck, describeRecheckFailure, type ChunkRecheckConfig } from '../gate/chunk-recheck.js';
import type { ChunkScreen } from '../gate/chunk-screen.js';
import { describeCause } from '../gate/events.js';
import type { Gate } from '../gate/gate.js';
import type { StaleObstacle } from '../gate/tracked-obstacles.js';
import type { BandState, WarningBand } from '../gate/warning-band.js';
import type { CommandSink, Fault, JointChunk, JointStateSource } from '../ports/index.js';
import { runFilterStage, type FilterStage } from './chunk-filter-service.js';

export interface ChunkExecutorOptions {
  readonly gate: Gate;
  readonly screen: ChunkScreen;
  /** The chunk-level CBF in production; any ChunkFilter (comparison baselines in the sim pilot). */
  readonly filter: ChunkFilter;
  readonly sink: CommandSink;
  readonly joints: JointStateSource;
  /** The present joint state may be at most this old (s) when a chunk is filtered. */
  readonly maxStateAge: number;
  /** Returns a deadline predicate for one solve started at `now` (the runtime's clock), if any. */
  readonly deadline?: (now: number) => () => boolean;
  /**
   * Tracked obstacles to move into the barrier before each chunk is filtered; a stale one holds
   * (stale-signal fault from 'tracking').
   */
  readonly obstacles?: { refresh(now: number): StaleObstacle | null };
  /**
   * The warning band (issue 15) on the chunk the CBF passed, before the sink: it predicts the
   * force, torque and grasp clauses along the chunk and slows, bends or holds it inside ε. `state`
   * is the grip state at the time of the chunk (the present signal frame).
   */
  readonly band?: { readonly band: WarningBand; state(now: number): BandState };
  /** Reported to on every decision. */
  readonly onResult?: (result: ExecutedChunk, now: number) => void;
  /**
   * The rig's barrier and limits (and held-tilt faces) the chunk as it would go to the arm is
   * re-checked against after the filter and the band; a chunk that fails holds (`unsafe-chunk`).
   * null or absent: no re-check (a chunk path without a barrier model: the demos' comparison modes).
   */
  readonly recheck?: ChunkRecheckConfig | null;
}

/** What the pipeline hands a proposed chunk to: the gated executor, or a gate-off baseline. */
export interface ChunkPath {
  submit(chunk: GateChunk, now: number): ExecutedChunk;
  /**
   * Paths that filter off the control thread (OffThreadChunkPath): the decision arrives through
   * `done`, exactly once, possibly after this returns.
   */
  submitAsync?(chunk: GateChunk, now: number, done: (result: ExecutedChunk, t: number) => void): void;
  /** Called at the start of every control step (a path whose filter service faulted holds again). */
  step?(now: number): void;
  /** Change how old (s) the present joint state may be when a chunk is filtered (paths that check it). */
  setMaxStateAge?(seconds: number): void;
}

export class ChunkExecutor implements ChunkPath {
  private readonly q0: Float64Array;
  private maxStateAge: number;

  private readonly recheck: CommitRecheck | null;

  constructor(private readonly o: ChunkExecutorOptions) {
    this.q0 = new Float64Array(o.joints.joints);
    this.maxStateAge = o.maxStateAge;
    this.recheck = o.recheck ? new CommitRecheck(o.recheck, o.joints.joints) : null;
  }

  setMaxStateAge(seconds: number): void {
    if (!(seconds > 0) || !Number.isFinite(seconds))
      throw new RangeError(`max state age: expected seconds > 0, got ${seconds}`);
    this.maxStateAge = seconds;
  }

  submit(chunk: GateChunk, now: number): ExecutedChunk {
    let r: ExecutedChunk;
    try {
      r = this.decide(chunk, now);
    } catch (e) {
      // Same convention as readPositions/execute throwing: the component is treated as gone.
      this.o.gate.fault(now, { kind: 'disconnect', source: 'chunk path', detail: `threw: ${message(e)}` });
      r = this.held(chunk.id, this.o.gate);
    }
    this.report(r, now);
    return r;
  }

  private decide(chunk: GateChunk, now: number): ExecutedChunk {
    const refused = this.prepare(chunk, now, this.q0);
    if (refused) return refused;
    const band = this.o.band;
    const check = this.recheck;
    const heldAxis = check ? check.beforeFilter() : null;
    const stage = runFilterStage(
      this.o.filter,
      band?.band,
      chunk,
      this.q0,
      band ? band.state(now) : null,
      this.o.deadline?.(now),
    );
    if (check === null || stage.kind !== 'done') return this.commit(chunk, stage, now);
    const cbf = stage.cbf;
    if (cbf.status !== 'unchanged' && cbf.status !== 'filtered') return this.commit(chunk, stage, now);
    const filtered = cbf.status === 'filtered' ? cbf.targets : chunk.targets;
    const failed = check.check(
      chunk.targets,
      filtered,
      stage.band ? stage.band.targets : filtered,
      chunk.horizon,
      chunk.dt,
      this.q0,
      this.q0,
      heldAxis,
    );
    if (failed !== null) {
      // Nothing moved since the filter ran (same state, same thread): the chunk itself is unsafe.
      this.o.gate.unsafeChunk(now, chunk.id, describeRecheckFailure(failed));
      return this.held(chunk.id);
    }
    const r = this.commit(chunk, stage, now);
    if (r.verdict === 'executed' || r.verdict === 'filtered') check.committed();
    return r;
  }

  /**
   * The checks before a chunk is filtered: screen, gate state, monitors running, the present joint
   * state (read into `q0`; stale or not finite holds), tracked obstacles moved into the barrier (a
   * stale one holds). Returns the refusal, or undefined when the chunk may be filtered from `q0`.
   */
  prepare(chunk: GateChunk, now: number, q0: Float64Array): ExecutedChunk | undefined {
    const { gate, screen } = this.o;
    const id = chunk.id;
    const rejection = screen.check(chunk, now);
    if (rejection) return { id, verdict: 'rejected', code: rejection.code, reason: describeRejection(rejection) };
    if (gate.holding) return this.held(id, gate);
    // Monitors must be running: a chunk is not filtered against a gate nobody is feeding.
    const evalAge = now - gate.lastEvaluated;
    if (!(evalAge <= this.maxStateAge)) {
      gate.fault(now, {
        kind: 'timeout',
        source: 'gate',
        detail: `no monitor evaluation for ${Number.isFinite(evalAge) ? `${evalAge.toPrecision(3)} s` : 'ever'}`,
      });
      return this.held(id, gate);
    }
    return this.presentState(id, now, q0);
  }

  /**
   * The present joint state into `q0` (at most maxStateAge old, finite) and the tracked obstacles
   * into the barrier (none stale); else the gate holds and the refusal is returned.
   */
  presentState(id: string, now: number, q0: Float64Array): ExecutedChunk | undefined {
    const gate = this.o.gate;
    let stateTime: number;
    try {
      stateTime = this.o.joints.readPositions(q0);
    } catch (e) {
      gate.fault(now, { kind: 'disconnect', source: 'joint-state', detail: `readPositions threw: ${message(e)}` });
      return this.held(id, gate);
    }
    this.stateTime = stateTime;
    const age = now - stateTime;
    let finite = true;
    for (let j = 0; j < q0.length; j++) if (!Number.isFinite(q0[j])) finite = false;
    if (!(age <= this.maxStateAge) || !finite) {
      const fault: Fault = { kind: 'stale-signal', source: 'joint-state', signal: 'joint_positions', age };
      gate.fault(now, fault);
      return this.held(id, gate);
    }
    const stale = this.o.obstacles?.refresh(now) ?? null;
    if (stale !== null) {
      const seen = Number.isFinite(stale.age) ? `last seen ${stale.age.toPrecision(3)} s ago` : 'never seen';
      gate.fault(now, {
        kind: 'stale-signal',
        source: 'tracking',
        signal: `tracked obstacle '${stale.body}'`,
        age: stale.age,
        detail: `tracked obstacle '${stale.body}' ${seen}: the chunk cannot be checked against it`,
      });
      return this.held(id, gate);
    }
    return undefined;
  }

  /** Sample time (s) of the joint state the last `prepare` / `presentState` read. */
  stateTime = NaN;

  /**
   * What the filter stage made of the chunk, to the gate and the arm: a refusal holds; a passed or
   * filtered chunk (after the band) is copied, sent to the sink, and reported.
   */
  commit(chunk: GateChunk, stage: FilterStage, now: number): ExecutedChunk {
    const { gate, sink } = this.o;
    const id = chunk.id;
    if (stage.kind === 'threw') {
      if (stage.stage === 'filter') gate.solverFailed(now, id, `filter threw: ${stage.detail}`);
      else gate.fault(now, { kind: 'disconnect', source: 'warning band', detail: `threw: ${stage.detail}` });
      return this.held(id, gate);
    }
    const outcome = stage.cbf;
    switch (outcome.status) {
      case 'solver-failure':
        gate.solverFailed(now, id, outcome.detail);
        return this.held(id, gate);
      case 'unsafe':
        gate.unsafeChunk(now, id, outcome.detail);
        return { ...this.held(id, gate), slackUsed: outcome.slackUsed };
      case 'unchanged':
      case 'filtered': {
        const band = stage.band;
        const targets = band ? band.targets : outcome.targets;
        const filtered = outcome.status === 'filtered';
        const modified = filtered || band !== undefined;
        const forward: JointChunk = {
          id,
          stamp: chunk.stamp,
          horizon: chunk.horizon,
          joints: chunk.joints,
          dt: chunk.dt,
          targets: Float64Array.from(targets),
        };
        const { slackUsed, minH, cbfViolation } = outcome;
        const modification = band
          ? armModification(forward.targets, chunk.targets, chunk.joints, this.o.band!.band.config.armJoints)
          : outcome.modification;
        try {
          sink.execute(forward, now);
        } catch (e) {
          gate.fault(now, { kind: 'disconnect', source: sink.name, detail: `execute threw: ${message(e)}` });
          return this.held(id, gate);
        }
        gate.chunkExecuted(now, id, modified);
        const cbfReason = filtered
          ? `CBF modified the chunk by up to ${outcome.modification.toPrecision(3)} rad`
          : 'chunk already satisfies the barrier and limits';
        return {
          id,
          verdict: modified ? 'filtered' : 'executed',
          code: modified ? 'filtered' : 'ok',
          reason: band ? `${cbfReason}; ${describeBand(band)}` : cbfReason,
          targets: forward.targets,
          slackUsed,
          modification,
          // minH and the barrier condition describe the chunk the CBF checked; for a chunk the band
          // changed afterwards (re-checked before it got here, h ≥ −δ) they are left out.
          ...(band ? { band: bandRecord(band)! } : { minH, cbfViolation }),
        };
      }
    }
  }

  /** Report a decision made outside `submit` (the off-thread path's answers). */
  report(r: ExecutedChunk, now: number): void {
    try {
      this.o.onResult?.(r, now);
    } catch {
      // A failing recorder loses this record; the caller still gets the decision.
    }
  }

  held(id: string, gate: Gate = this.o.gate): ExecutedChunk {
    const cause = gate.holdCause;
    return { id, verdict: 'held', code: cause?.kind ?? 'hold', reason: cause ? describeCause(cause) : 'gate holding' };
  }
}

/** max |u − u_nom| over the first `arm` columns of each row. */
function armModification(u: Float64Array, nominal: Float64Array, columns: number, arm: number): number {
  let mod = 0;
  for (let c = 0; c < u.length; c++) if (c % columns < arm) mod = Math.max(mod, Math.abs(u[c]! - nominal[c]!));
  return mod;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
