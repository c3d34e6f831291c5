/**
 * The simulator behind the driver ports: a CommandSink that plays checked chunks as actuator
 * position targets, a SignalSource that hands out the signals of the latest tick, and a
 * JointStateSource.
 */
import type { CommandSink, FaultListener, JointChunk, JointStateSource, SignalSource } from '../../src/ports/index.js';
import { SIGNALS, type SignalFrame } from '../../src/schema/signals.js';
import type { SimSignals } from './signals.js';
import type { SimWorld } from './world.js';
import { Listeners } from '../../src/util/listeners.js';

export class SimCommandSink implements CommandSink {
  readonly name = 'sim.actuators';
  private chunk: JointChunk | undefined;
  private cursor = 0;
  private lastHeartbeat = NaN;
  private readonly listeners = new Listeners<Parameters<FaultListener>>();
  private readonly holdRow: Float64Array;
  private readonly commanded: Float64Array;
  private holding = true;
  /** The reason of the last hold, '' when a chunk is playing. */
  holdReason = 'start';

  /** `heartbeatTimeout`: after a first heartbeat, the sink holds by itself once they stop. */
  constructor(
    private readonly world: SimWorld,
    private readonly heartbeatTimeout = 0.25,
  ) {
    this.holdRow = new Float64Array(world.nArm + 1);
    this.commanded = new Float64Array(world.nArm + 1);
  }

  execute(chunk: JointChunk, _now: number): void {
    if (chunk.joints !== this.world.nArm + 1 || chunk.targets.length !== chunk.horizon * chunk.joints) {
      this.listeners.emit({ kind: 'invalid-sample', source: this.name, signal: 'chunk', value: chunk.joints }, _now);
      this.hold(_now, `malformed chunk ${chunk.id}`);
      return;
    }
    this.chunk = chunk;
    this.cursor = 0;
    this.holding = false;
    this.holdReason = '';
  }

  hold(_now: number, reason: string): void {
    this.world.readJoints(this.holdRow);
    // Keep the gripper where it is commanded, not where the fingers were pushed to.
    this.world.currentTargets(this.commanded);
    this.holdRow[this.world.nArm] = this.commanded[this.world.nArm] ?? 0;
    this.chunk = undefined;
    this.holding = true;
    this.holdReason = reason;
    this.world.setTargets(this.holdRow);
  }

  /** While holding: open the gripper in place (the semantic gate's refusal option, design §6 hold action). */
  openGripper(_now: number): void {
    if (!this.holding) return;
    this.holdRow[this.world.nArm] = this.world.scene.gripper.open;
    this.world.setTargets(this.holdRow);
  }

  heartbeat(now: number): void {
    this.lastHeartbeat = now;
  }

  onFault(listener: FaultListener): void {
    this.listeners.add(listener);
  }

  get isHolding(): boolean {
    return this.holding;
  }

  /** Apply the target for the tick starting at `now`; call once per control tick before stepping. */
  tick(now: number): void {
    if (!Number.isNaN(this.lastHeartbeat) && now - this.lastHeartbeat > this.heartbeatTimeout && !this.holding) {
      this.listeners.emit(
        {
          kind: 'remote-heartbeat',
          source: this.name,
          detail: `no gate heartbeat for ${(now - this.lastHeartbeat).toFixed(3)} s`,
        },
        now,
      );
      this.hold(now, 'heartbeat lost');
      return;
    }
    const c = this.chunk;
    if (!c) return;
    const k = Math.min(this.cursor, c.horizon - 1);
    this.world.setTargets(c.targets.subarray(k * c.joints, (k + 1) * c.joints));
    this.cursor++;
  }
}

export class SimSignalSource implements SignalSource {
  readonly name = 'sim';
  private readonly listeners = new Listeners<Parameters<FaultListener>>();

  constructor(private readonly signals: SimSignals) {}

  poll(frame: SignalFrame, now: number): void {
    this.signals.fill(frame, now);
    for (let i = 0; i < frame.values.length; i++) {
      if (frame.validity[i] === 2 && frame.stamps[i] === now) {
        this.listeners.emit(
          {
            kind: 'invalid-sample',
            source: this.name,
            signal: SIGNALS[i]?.name ?? String(i),
            value: frame.values[i] ?? NaN,
          },
          now,
        );
      }
    }
  }

  onFault(listener: FaultListener): void {
    this.listeners.add(listener);
  }
}

export class SimJointState implements JointStateSource {
  readonly joints: number;
  constructor(private readonly world: SimWorld) {
    this.joints = world.nArm + 1;
  }
  readPositions(out: Float64Array): number {
    this.world.readJoints(out);
    return this.world.time;
  }
}
