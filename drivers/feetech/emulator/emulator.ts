/**
 * An STS3215 bus emulator: servos on one half-duplex line. Feed it the bytes the master sends; it
 * answers through `onTransmit` exactly as servos would (status packets, SYNC_READ one per servo
 * in request order, return delay from Return_Delay_Time plus an optional extra delay).
 */
import type { Timers } from '../../../src/util/clock.js';
import { concatBytes } from '../../../src/util/bytes.js';
import { PacketFramer } from '../framer.js';
import { BROADCAST_ID, Instruction, MAX_PARAMS, type Packet, encodeStatus } from '../protocol.js';
import type { RegisterName } from '../registers.js';
import { systemTimers } from '../../../src/platform/system-clock.js';
import { EmulatedServo } from './servo.js';
import { Listeners } from '../../../src/util/listeners.js';

/** Called before a servo answers a READ/SYNC_READ, so a simulator can refresh present values. */
export type PhysicsHook = (servo: EmulatedServo) => void;
/** Called after a WRITE/SYNC_WRITE/ACTION changed a servo's registers. */
export type WriteListener = (servo: EmulatedServo, address: number, length: number) => void;

export interface FeetechEmulatorOptions {
  /** Servo ids to create with default registers. */
  ids?: readonly number[];
  /** Timers for return delays; default real timers. */
  timers?: Timers;
  /** Added to every reply's Return_Delay_Time (seconds), e.g. to model USB latency. Default 0. */
  extraReplyDelayS?: number;
}

export interface EmulatorCounters {
  readonly instructions: number;
  readonly replies: number;
  readonly checksumErrors: number;
}

export class FeetechEmulator {
  private readonly servos: EmulatedServo[] = [];
  private readonly framer = new PacketFramer();
  private readonly transmitListeners = new Listeners<[bytes: Uint8Array]>();
  private readonly writeListeners = new Listeners<Parameters<WriteListener>>();
  private readonly timers: Timers;
  private physics: PhysicsHook | undefined;
  private instructionCount = 0;
  private replyCount = 0;
  extraReplyDelayS: number;

  constructor(options: FeetechEmulatorOptions = {}) {
    this.timers = options.timers ?? systemTimers;
    this.extraReplyDelayS = options.extraReplyDelayS ?? 0;
    for (const id of options.ids ?? []) this.addServo(id);
  }

  addServo(id: number, initial: Partial<Record<RegisterName, number>> = {}): EmulatedServo {
    if (this.find(id)) throw new RangeError(`emulator: servo id ${id} already exists`);
    const s = new EmulatedServo(id, initial);
    this.servos.push(s);
    return s;
  }

  /** The servo currently answering to `id` (ids can change via the ID register). Throws if absent. */
  servo(id: number): EmulatedServo {
    const s = this.find(id);
    if (!s) throw new RangeError(`emulator: no servo with id ${id}`);
    return s;
  }

  get allServos(): readonly EmulatedServo[] {
    return this.servos;
  }

  get counters(): EmulatorCounters {
    return {
      instructions: this.instructionCount,
      replies: this.replyCount,
      checksumErrors: this.framer.counters.checksumErrors,
    };
  }

  setPhysics(hook: PhysicsHook | undefined): void {
    this.physics = hook;
  }

  onWrite(listener: WriteListener): void {
    this.writeListeners.add(listener);
  }

  /** Where replies go (the wire back to the master). */
  onTransmit(listener: (bytes: Uint8Array) => void): void {
    this.transmitListeners.add(listener);
  }

  /** Put arbitrary bytes on the wire towards the master (line noise, a second talker). */
  injectNoise(bytes: Uint8Array): void {
    this.transmitListeners.emit(bytes);
  }

  /** Bytes arriving from the master. */
  feed(bytes: Uint8Array): void {
    this.framer.push(bytes, (p) => this.handle(p));
  }

  private find(id: number): EmulatedServo | undefined {
    return this.servos.find((s) => s.id === id);
  }

  private handle(p: Packet): void {
    this.instructionCount++;
    const params = p.params;
    switch (p.code) {
      case Instruction.PING:
        this.unicast(p.id, (s) => ({ s, data: new Uint8Array(0) }), true);
        return;
      case Instruction.READ: {
        if (params.length !== 2) return;
        const [address = 0, length = 0] = params;
        if (length > MAX_PARAMS) return;
        this.unicast(
          p.id,
          (s) => {
            this.physics?.(s);
            return { s, data: s.readBytes(address, length) };
          },
          true,
        );
        return;
      }
      case Instruction.WRITE:
      case Instruction.REG_WRITE: {
        if (params.length < 2) return;
        const address = params[0] ?? 0;
        const data = params.subarray(1);
        const apply = (s: EmulatedServo): void => {
          if (p.code === Instruction.WRITE) {
            s.writeBytes(address, data);
            this.notifyWrite(s, address, data.length);
          } else s.stage(address, data);
        };
        if (p.id === BROADCAST_ID) {
          for (const s of [...this.servos]) apply(s);
          return;
        }
        this.unicast(
          p.id,
          (s) => {
            apply(s);
            return { s, data: new Uint8Array(0) };
          },
          false,
        );
        return;
      }
      case Instruction.ACTION: {
        for (const s of this.servos) {
          if (p.id !== BROADCAST_ID && s.id !== p.id) continue;
          s.applyStaged();
          this.notifyWrite(s, 0, 0);
        }
        return;
      }
      case Instruction.SYNC_READ: {
        if (p.id !== BROADCAST_ID || params.length < 2) return;
        const address = params[0] ?? 0;
        const length = params[1] ?? 0;
        if (length > MAX_PARAMS) return;
        const replies: { s: EmulatedServo; data: Uint8Array }[] = [];
        for (const id of params.subarray(2)) {
          const s = this.find(id);
          if (!s || !s.responsive) continue;
          this.physics?.(s);
          replies.push({ s, data: s.readBytes(address, length) });
        }
        this.reply(replies);
        return;
      }
      case Instruction.SYNC_WRITE: {
        if (p.id !== BROADCAST_ID || params.length < 2) return;
        const address = params[0] ?? 0;
        const length = params[1] ?? 0;
        const stride = length + 1;
        if (length === 0 || (params.length - 2) % stride !== 0) return;
        for (let off = 2; off < params.length; off += stride) {
          const s = this.find(params[off] ?? -1);
          if (!s || !s.responsive) continue;
          s.writeBytes(address, params.subarray(off + 1, off + stride));
          this.notifyWrite(s, address, length);
        }
        return;
      }
      default:
        return; // unknown instruction: servos stay silent
    }
  }

  /** Unicast instruction: the addressed servo acts and (status level permitting) answers. */
  private unicast(
    id: number,
    act: (s: EmulatedServo) => { s: EmulatedServo; data: Uint8Array },
    alwaysReplies: boolean,
  ): void {
    if (id === BROADCAST_ID) return;
    const s = this.find(id);
    if (!s || !s.responsive) return;
    const r = act(s);
    if (alwaysReplies || s.getRegister('Response_Status_Level') !== 0) this.reply([r]);
  }

  private reply(replies: readonly { s: EmulatedServo; data: Uint8Array }[]): void {
    let delay = this.extraReplyDelayS;
    // Replies due at the same moment go out as one write: the bytes on the wire are the same, and a
    // tty costs one syscall round instead of one per servo.
    let batch: Uint8Array[] = [];
    let batchDelay = delay;
    const flush = (): void => {
      if (batch.length === 0) return;
      const bytes = batch.length === 1 ? (batch[0] as Uint8Array) : concatBytes(batch);
      const n = batch.length;
      if (batchDelay > 0) this.timers.setTimeout(() => this.transmit(bytes, n), batchDelay);
      else this.transmit(bytes, n);
      batch = [];
    };
    for (const { s, data } of replies) {
      const packet = encodeStatus(s.id, s.errorByte, data);
      if (s.corruptReplies > 0) {
        s.corruptReplies--;
        packet[packet.length - 1] = (packet[packet.length - 1] ?? 0) ^ 0x5a;
      }
      delay += s.getRegister('Return_Delay_Time') * 2e-6;
      if (delay !== batchDelay) {
        flush();
        batchDelay = delay;
      }
      batch.push(packet);
    }
    flush();
  }

  private transmit(bytes: Uint8Array, packets: number): void {
    this.replyCount += packets;
    this.transmitListeners.emit(bytes);
  }

  private notifyWrite(s: EmulatedServo, address: number, length: number): void {
    this.writeListeners.emit(s, address, length);
  }
}
