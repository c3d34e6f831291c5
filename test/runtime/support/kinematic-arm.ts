/**
 * A kinematic (position-controlled) arm for closed-loop tests: each control tick it moves to the
 * next target of the chunk it is executing (z_{k+1} = u_k, the filter's model), holds where it is on
 * a hold command, and records everything it was commanded. Implements the CommandSink and
 * JointStateSource ports, as the SO-101 bus driver does.
 */
import type { CommandSink, FaultListener, JointChunk, JointStateSource } from '../../../src/ports/index.js';

export class KinematicArm implements CommandSink, JointStateSource {
  readonly name = 'kinematic-arm';
  readonly q: Float64Array;
  private stamp = NaN;
  private chunk: JointChunk | null = null;
  private stepIndex = 0;
  readonly executed: { chunk: JointChunk; t: number; from: Float64Array }[] = [];
  readonly holds: { t: number; reason: string; at: Float64Array }[] = [];
  readonly heartbeats: number[] = [];
  gripperOpened = 0;
  readonly faultListeners: FaultListener[] = [];
  /** Every configuration the arm passed through. */
  readonly path: Float64Array[] = [];

  constructor(q0: readonly number[], t0 = 0) {
    this.q = Float64Array.from(q0);
    this.stamp = t0;
  }
  get joints(): number {
    return this.q.length;
  }
  execute(chunk: JointChunk, now: number): void {
    this.executed.push({ chunk, t: now, from: this.q.slice() });
    this.chunk = chunk;
    this.stepIndex = 0;
  }
  hold(now: number, reason: string): void {
    this.holds.push({ t: now, reason, at: this.q.slice() });
    this.chunk = null;
  }
  heartbeat(now: number): void {
    this.heartbeats.push(now);
  }
  openGripper(): void {
    this.gripperOpened++;
  }
  onFault(listener: FaultListener): void {
    this.faultListeners.push(listener);
  }
  readPositions(out: Float64Array): number {
    out.set(this.q);
    return this.stamp;
  }
  /** Advance one chunk step at time `now`. */
  tick(now: number): void {
    const c = this.chunk;
    if (c && this.stepIndex < c.horizon) {
      this.q.set(c.targets.subarray(this.stepIndex * c.joints, (this.stepIndex + 1) * c.joints));
      this.stepIndex++;
      this.path.push(this.q.slice());
    }
    this.stamp = now;
  }
  get busy(): boolean {
    return this.chunk !== null && this.stepIndex < this.chunk.horizon;
  }
}
