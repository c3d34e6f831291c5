/**
 * The SO-101 follower on its own Feetech bus (ids 1–6 at 1 Mbps). Implements the ports:
 * SignalSource (mapped signals), CommandSink (execute / hold / heartbeat with an arm-side watchdog)
 * and JointStateSource. Connecting only pings: it never writes Goal_Position or Torque_Enable, so
 * the arm does not move and keeps whatever torque state it had. Every bus problem becomes a typed
 * Fault for the listeners; no method throws into the caller's loop.
 */
import type {
  CommandSink,
  Fault,
  FaultListener,
  JointChunk,
  JointStateSource,
  SignalSource,
} from '../../src/ports/index.js';
import type { SignalFrame } from '../../src/schema/signals.js';
import type { Clock, TimerHandle, Timers } from '../../src/util/clock.js';
import { err, ok, type Result } from '../../src/util/result.js';
import { radiansToTicks, type JointTicks } from '../../src/calibration/lerobot.js';
import { jointLimitsRadians, so101JointTicks, type So101Calibration } from '../../src/calibration/so101.js';
import type { FreeMotionModel } from '../../src/calibration/free-motion.js';
import { decodeErrorBits, type FeetechBus, type ServoState } from '../feetech/index.js';
import { So101Mapping, createRawState, type So101RawState } from './mapping.js';
import { Listeners } from '../../src/util/listeners.js';
import { secondsToNs } from '../../src/util/time.js';

/** Oldest last-read position (s) a hold may command when its own read fails. */
export const HOLD_FALLBACK_MAX_AGE = 0.05;

export interface So101ArmOptions {
  bus: FeetechBus;
  calibration: So101Calibration;
  freeMotion: FreeMotionModel;
  clock: Clock;
  timers: Timers;
  /** Hold when no gate heartbeat arrived for this long (s). Default 0.25. */
  watchdogS?: number;
  name?: string;
}

/** Latest full state: registers per joint plus servo health. */
export interface So101State {
  readonly t: number;
  readonly raw: So101RawState;
  readonly voltage: Float64Array;
  readonly temperature: Float64Array;
  readonly status: Uint8Array;
}

const JOINTS = 6;

export class So101Arm implements SignalSource, CommandSink, JointStateSource {
  readonly name: string;
  readonly joints = JOINTS;
  readonly mapping: So101Mapping;
  readonly ids: readonly number[];
  /** Isolated: a listener's failure must not reach the bus loop. */
  private readonly listeners = new Listeners<Parameters<FaultListener>>({ isolate: true });
  private readonly raw = createRawState();
  private readonly voltage = new Float64Array(JOINTS);
  private readonly temperature = new Float64Array(JOINTS);
  private readonly status = new Uint8Array(JOINTS);
  private stamp = NaN;
  private readonly watchdogS: number;
  private lastHeartbeat = NaN;
  private watchdog: TimerHandle | undefined;
  private watchdogTripped = false;
  private chunkTimers: TimerHandle[] = [];
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  private readonly ticks: readonly JointTicks[];
  private readonly unsubscribeBus: () => void;
  /** The servo-error fault each servo reports now (re-raised on every read while it persists). */
  private readonly servoFaults = new Map<number, Fault>();
  private readonly jointOf: Map<number, string>;
  /** Holds issued (count) and the last reason, for diagnostics. */
  holds = 0;
  lastHoldReason = '';

  private constructor(private readonly o: So101ArmOptions) {
    this.name = o.name ?? `so101:${o.calibration.armId}`;
    this.ids = o.calibration.joints.map((j) => j.id);
    this.mapping = new So101Mapping(o.calibration, o.freeMotion);
    this.watchdogS = o.watchdogS ?? 0.25;
    const limits = jointLimitsRadians(o.calibration);
    this.lower = Float64Array.from(limits.lower);
    this.upper = Float64Array.from(limits.upper);
    this.ticks = so101JointTicks(o.calibration);
    // Servo errors name the joint too (the bus knows only ids); readState re-raises them while they last.
    this.jointOf = new Map(o.calibration.joints.map((j) => [j.id, j.name]));
    this.unsubscribeBus = o.bus.onFault((f, t) => {
      if (f.kind !== 'servo-error') this.emit(f, t);
    });
  }

  /**
   * Check that all six servos answer (PING only). Nothing is written: no Goal_Position, no
   * Torque_Enable — the arm stays exactly as it was.
   */
  static async connect(o: So101ArmOptions): Promise<Result<So101Arm, Fault>> {
    const arm = new So101Arm(o);
    for (const id of arm.ids) {
      const r = await o.bus.ping(id);
      if (!r.ok) {
        arm.close();
        return err(r.error);
      }
    }
    return ok(arm);
  }

  onFault(listener: FaultListener): void {
    this.listeners.add(listener);
  }

  private emit(f: Fault, t = this.o.clock.now()): void {
    this.listeners.emit(f, t);
  }

  /** One SYNC_READ of the full state block for all six servos, then the signal mapping. */
  async readState(): Promise<Result<So101State, Fault>> {
    let r: Result<Map<number, ServoState>, Fault>;
    try {
      r = await this.o.bus.readFullState(this.ids);
    } catch (e) {
      const f: Fault = { kind: 'disconnect', source: this.name, detail: `state read failed: ${(e as Error).message}` };
      this.emit(f);
      return err(f);
    }
    if (!r.ok) return r;
    for (let j = 0; j < JOINTS; j++) {
      const s = r.value.get(this.ids[j]!);
      if (!s) {
        const f: Fault = { kind: 'timeout', source: this.name, detail: `no state from servo ${this.ids[j]}` };
        this.emit(f);
        return err(f);
      }
      this.raw.position[j] = s.position;
      this.raw.velocity[j] = s.velocity;
      this.raw.load[j] = s.load;
      this.raw.current[j] = s.current;
      this.voltage[j] = s.voltage / 10;
      this.temperature[j] = s.temperature;
      this.status[j] = s.status | s.errorByte;
      this.noteServoError(s.id, s.errorByte);
    }
    this.stamp = this.o.clock.now();
    this.mapping.update(this.raw, this.stamp);
    return ok({
      t: this.stamp,
      raw: this.raw,
      voltage: this.voltage,
      temperature: this.temperature,
      status: this.status,
    });
  }

  /**
   * A servo reporting error bits holds the gate on every read while the bits stay set (the gate's
   * fault quiet period must not let a release through while a servo is still overheating).
   */
  private noteServoError(id: number, code: number): void {
    let f = this.servoFaults.get(id);
    if (code === 0) {
      if (f) this.servoFaults.delete(id);
      return;
    }
    if (!f || f.kind !== 'servo-error' || !f.detail?.endsWith(`(error byte 0x${code.toString(16).padStart(2, '0')})`)) {
      const bits = decodeErrorBits(code);
      f = {
        kind: 'servo-error',
        source: this.name,
        servoId: id,
        bits,
        detail: `servo ${id} (${this.jointOf.get(id) ?? 'unknown joint'}): ${bits.join(', ')} (error byte 0x${code.toString(16).padStart(2, '0')})`,
      };
      this.servoFaults.set(id, f);
    }
    this.emit(f);
  }

  /** SignalSource: the mapped signals of the latest read (stamped with that read's time). */
  poll(frame: SignalFrame, now: number): void {
    void now;
    if (Number.isNaN(this.stamp)) return;
    this.mapping.writeFrame(frame, this.stamp, this.name);
  }

  /** The latest read's stamp (integer ns on the clock's seconds): the frame is monitored at it, once. */
  sampleNs(): number {
    return secondsToNs(this.stamp);
  }

  /** JointStateSource: joint angles (rad) of the latest read. */
  readPositions(out: Float64Array): number {
    out.set(this.mapping.q.subarray(0, Math.min(out.length, JOINTS)));
    return this.stamp;
  }

  /**
   * Sync-write goal positions (rad, 6 joints: the URDF joint angles, the gripper 0 closed … its upper
   * limit open), clamped to the calibrated joint limits; ticks by so101JointTicks.
   */
  async writeGoals(qRad: ArrayLike<number>): Promise<Result<void, Fault>> {
    const values = new Map<number, number>();
    for (let j = 0; j < JOINTS; j++) {
      const q = Math.min(this.upper[j]!, Math.max(this.lower[j]!, qRad[j] ?? NaN));
      if (!Number.isFinite(q)) {
        const f: Fault = { kind: 'invalid-sample', source: this.name, signal: `goal[${j}]`, value: qRad[j] ?? NaN };
        this.emit(f);
        return err(f);
      }
      values.set(this.ids[j]!, radiansToTicks(q, this.ticks[j]!));
    }
    return this.safely(() => this.o.bus.syncWriteRegister('Goal_Position', values));
  }

  /** Torque on/off for all six servos (one sync write). */
  async setTorque(enabled: boolean): Promise<Result<void, Fault>> {
    const values = new Map(this.ids.map((id) => [id, enabled ? 1 : 0]));
    return this.safely(() => this.o.bus.syncWriteRegister('Torque_Enable', values));
  }

  /**
   * Hold: a fresh read of Present_Position, then Goal_Position := Present_Position. If that read
   * fails, the last full-state read stands in only while it is at most HOLD_FALLBACK_MAX_AGE old;
   * an older one could drive the arm back to where it was, so the goals are then left as they are
   * (the chunk is cancelled: the arm stops at the row it was heading to) and the fault is returned.
   */
  async holdNow(reason: string): Promise<Result<void, Fault>> {
    this.cancelChunk();
    this.holds++;
    this.lastHoldReason = reason;
    const pos = await this.safely(() => this.o.bus.syncReadRegister(this.ids, 'Present_Position'));
    const values = new Map<number, number>();
    if (pos.ok) for (const [id, p] of pos.value) values.set(id, p);
    else if (this.o.clock.now() - this.stamp <= HOLD_FALLBACK_MAX_AGE)
      this.ids.forEach((id, j) => values.set(id, this.raw.position[j]!));
    else return err(pos.error);
    return this.safely(() => this.o.bus.syncWriteRegister('Goal_Position', values));
  }

  /**
   * Open the gripper to its calibrated open end while the body joints stay where they are (the
   * semantic gate's optional gripper-open on refusal, seeds/003 F.1): a fresh Present_Position read,
   * then Goal_Position := present for the five body joints and := the gripper's upper limit for the
   * gripper (its calibrated range_max, LeRobot's 100 = open), in one sync write. A failed read
   * writes nothing (the hold that preceded it stands).
   */
  async openGripperNow(): Promise<Result<void, Fault>> {
    this.cancelChunk();
    const pos = await this.safely(() => this.o.bus.syncReadRegister(this.ids, 'Present_Position'));
    if (!pos.ok) return pos;
    const values = new Map(pos.value);
    const g = JOINTS - 1;
    values.set(this.ids[g]!, radiansToTicks(this.upper[g]!, this.ticks[g]!));
    return this.safely(() => this.o.bus.syncWriteRegister('Goal_Position', values));
  }

  /** CommandSink: see openGripperNow. */
  openGripper(now: number): void {
    void now;
    void this.openGripperNow();
  }

  /** CommandSink: play the chunk's rows at its step period (first row now). */
  execute(chunk: JointChunk, now: number): void {
    void now;
    this.cancelChunk();
    const row = new Float64Array(JOINTS);
    for (let k = 0; k < chunk.horizon; k++) {
      const fire = (): void => {
        for (let j = 0; j < JOINTS; j++) row[j] = chunk.targets[k * chunk.joints + j] ?? NaN;
        void this.writeGoals(row);
      };
      if (k === 0) fire();
      else this.chunkTimers.push(this.o.timers.setTimeout(fire, k * chunk.dt));
    }
  }

  hold(now: number, reason: string): void {
    void now;
    void this.holdNow(reason);
  }

  /** CommandSink: the gate is alive. Arms the watchdog on the first call. */
  heartbeat(now: number): void {
    this.lastHeartbeat = now;
    this.watchdogTripped = false;
    this.watchdog ??= this.o.timers.setInterval(() => this.checkWatchdog(), this.watchdogS / 2);
  }

  private checkWatchdog(): void {
    const now = this.o.clock.now();
    if (this.watchdogTripped || Number.isNaN(this.lastHeartbeat) || now - this.lastHeartbeat <= this.watchdogS) return;
    this.watchdogTripped = true;
    this.emit(
      {
        kind: 'remote-heartbeat',
        source: this.name,
        detail: `no gate heartbeat for ${(now - this.lastHeartbeat).toFixed(3)} s (limit ${this.watchdogS} s): holding`,
      },
      now,
    );
    void this.holdNow('heartbeat lost');
  }

  private cancelChunk(): void {
    for (const t of this.chunkTimers) t.cancel();
    this.chunkTimers = [];
  }

  /** Stop timers and stop forwarding bus faults; leaves torque as it is (the operator decides, not a disconnect). */
  close(): void {
    this.unsubscribeBus();
    this.cancelChunk();
    this.watchdog?.cancel();
    this.watchdog = undefined;
  }

  private async safely<T>(op: () => Promise<Result<T, Fault>>): Promise<Result<T, Fault>> {
    try {
      return await op();
    } catch (e) {
      const f: Fault = { kind: 'disconnect', source: this.name, detail: (e as Error).message };
      this.emit(f);
      return err(f);
    }
  }
}
