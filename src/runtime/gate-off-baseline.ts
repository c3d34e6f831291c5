/**
 * A gate-off baseline run (the run that success-but-unsafe is measured against): the policy's
 * chunks go to the arm unfiltered, after the screen (shape, NaN, joint limits, age, order), while
 * the monitors and the gate keep running and are recorded. The gate's holds for clause violations,
 * warnings, missing/stale signals and clock jumps are "would-hold" records only: the arm is not
 * held for them, and the gate leaves such a hold by itself once its cause is gone, so each
 * would-hold interval is recorded. An e-stop, the source watchdog and driver faults still hold the
 * arm and refuse chunks (Gate.stopReason): a baseline run is not a run without an e-stop.
 */
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import { describeRejection } from '../gate/chunk.js';
import type { ChunkScreen } from '../gate/chunk-screen.js';
import type { Gate } from '../gate/gate.js';
import type { CommandSink, JointChunk } from '../ports/index.js';
import type { ChunkPath } from './chunk-executor.js';

/** The `by` of the gate's own release when a would-hold's cause is gone in a baseline run. */
export const BASELINE_RELEASE_BY = 'gate off (baseline): cause cleared';

export interface GateOffBaselineOptions {
  readonly gate: Gate;
  readonly screen: ChunkScreen;
  /** The arm. */
  readonly arm: CommandSink;
  readonly onResult?: (result: ExecutedChunk, now: number) => void;
}

export class GateOffBaseline implements ChunkPath {
  /** True while the arm is held for a stop reason (e-stop, watchdog, driver fault). */
  private armHeld = false;
  /** The CommandSink the pipeline drives: holds only for a stop reason, heartbeats always. */
  readonly sink: CommandSink;

  constructor(private readonly o: GateOffBaselineOptions) {
    const { arm, gate } = o;
    this.sink = {
      name: `${arm.name} (gate off: baseline)`,
      execute: (c, now) => arm.execute(c, now),
      hold: (now, reason) => {
        if (gate.stopReason(now) === null) return;
        this.armHeld = true;
        arm.hold(now, reason);
      },
      heartbeat: (now) => {
        arm.heartbeat(now);
        this.tick(now);
      },
      onFault: () => undefined,
    };
  }

  /** Once per control step (after the gate's evaluation): stop holds, and the end of a would-hold. */
  private tick(now: number): void {
    const { gate, arm } = this.o;
    const stop = gate.stopReason(now);
    if (stop !== null) {
      // An e-stop that arrives while the gate already holds for a clause emits no transition: hold here.
      if (!this.armHeld) {
        this.armHeld = true;
        arm.hold(now, stop);
      }
      return;
    }
    this.armHeld = false;
    if (gate.holding && gate.persistingReason(now) === null)
      gate.release(now, { by: BASELINE_RELEASE_BY, authorised: true });
  }

  submit(chunk: GateChunk, now: number): ExecutedChunk {
    const r = this.decide(chunk, now);
    try {
      this.o.onResult?.(r, now);
    } catch {
      // A failing recorder loses this record; the caller still gets the decision.
    }
    return r;
  }

  private decide(chunk: GateChunk, now: number): ExecutedChunk {
    const { gate, screen, arm } = this.o;
    const id = chunk.id;
    const rejection = screen.check(chunk, now);
    if (rejection) return { id, verdict: 'rejected', code: rejection.code, reason: describeRejection(rejection) };
    const stop = gate.stopReason(now);
    if (stop !== null || this.armHeld) return { id, verdict: 'held', code: 'stop', reason: stop ?? 'arm held' };
    const forward: JointChunk = {
      id,
      stamp: chunk.stamp,
      horizon: chunk.horizon,
      joints: chunk.joints,
      dt: chunk.dt,
      targets: Float64Array.from(chunk.targets),
    };
    try {
      arm.execute(forward, now);
    } catch (e) {
      gate.fault(now, {
        kind: 'disconnect',
        source: arm.name,
        detail: `execute threw: ${e instanceof Error ? e.message : String(e)}`,
      });
      return { id, verdict: 'held', code: 'driver-fault', reason: gate.stopReason(now) ?? 'execute failed' };
    }
    return {
      id,
      verdict: 'executed',
      code: 'gate-off',
      reason: 'gate off (baseline): forwarded unfiltered',
      targets: forward.targets,
      modification: 0,
    };
  }
}
