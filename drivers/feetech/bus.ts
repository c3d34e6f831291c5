/**
 * Feetech STS bus master over a ByteLink (real serialport). Half-duplex request/response: one
 * transaction in flight, the rest queued. Every request resolves to a Result — runtime problems
 * (timeout, disconnect) come back as typed Faults and are also delivered to fault listeners; the
 * promises reject only on invalid arguments (programming errors).
 */
import type { Fault, FaultListener } from '../../src/ports/index.js';
import type { Clock, TimerHandle, Timers } from '../../src/util/clock.js';
import { ArmguardError } from '../../src/util/errors.js';
import { Listeners } from '../../src/util/listeners.js';
import { type Result, err, ok } from '../../src/util/result.js';
import { PacketFramer } from './framer.js';
import { type ByteLink, type SerialLinkOptions, openSerialLink } from './link.js';
import {
  BROADCAST_ID,
  MAX_PARAMS,
  MAX_SERVO_ID,
  type Packet,
  decodeErrorBits,
  encodeAction,
  encodePing,
  encodeRead,
  encodeRegWrite,
  encodeSyncRead,
  encodeSyncWrite,
  encodeWrite,
} from './protocol.js';
import {
  FULL_STATE_BLOCK,
  type RegisterName,
  type RegisterSpec,
  STS3215_REGISTERS,
  type ServoState,
  decodeFullState,
  decodeRegister,
  encodeRegister,
} from './registers.js';
import { systemClock, systemTimers } from '../../src/platform/system-clock.js';

export interface FeetechBusOptions {
  /** Fault source name; default `feetech:<link name>`. */
  source?: string;
  /** Default: the system timers (src/platform/system-clock.ts). Tests pass ManualTimers. */
  timers?: Timers;
  /** Time stamps for fault listeners; default: monotonic performance clock. */
  clock?: Clock;
  /** Per-attempt response timeout in seconds. Default 0.02. */
  timeoutS?: number;
  /** Extra attempts after a timeout (bounded). Default 2 (LeRobot's num_read_retries). */
  retries?: number;
  /** More than `maxErrors` checksum errors within `windowS` → `checksum-budget` fault. Default 10 / 1 s. */
  checksumBudget?: { maxErrors: number; windowS: number };
  /** Servos answer WRITE/REG_WRITE with a status (Response_Status_Level 1, the default). Default true. */
  writeReplies?: boolean;
}

export interface BusCounters {
  /** Instruction packets sent (retries included). */
  readonly tx: number;
  /** Valid packets received. */
  readonly rx: number;
  readonly txBytes: number;
  readonly rxBytes: number;
  readonly checksumErrors: number;
  /** Bytes the framer discarded while resynchronising. */
  readonly droppedBytes: number;
  /** Requests that failed after all retries with nothing but valid replies (or nothing) received. */
  readonly timeouts: number;
  /** Requests that failed after all retries while bytes that were no valid reply arrived (garbage). */
  readonly framingErrors: number;
  /** Re-sent attempts. */
  readonly retries: number;
  /** Valid packets nobody asked for, or with the wrong length. */
  readonly unexpected: number;
  /** Status packets with a non-zero error byte. */
  readonly servoErrorReplies: number;
}

export interface PingReply {
  readonly id: number;
  readonly errorByte: number;
}

type BusResult<T> = Result<T, Fault>;

interface Transaction {
  readonly label: string;
  /** Builds the packet for the given (still missing) responders. */
  readonly build: (ids: readonly number[]) => Uint8Array;
  /** Servos expected to answer; empty = no reply expected. */
  readonly ids: readonly number[];
  readonly replyLength: number;
  readonly responses: Map<number, Packet>;
  readonly reportTimeout: boolean;
  readonly resolve: (r: BusResult<Map<number, Packet>>) => void;
  attempt: number;
  /** Bytes received since the first attempt, and those that were valid replies. */
  rxAtSend: number;
  validBytes: number;
  timer: TimerHandle | undefined;
  firstSentAt: number;
  lastSentAt: number;
}

function checkId(id: number, allowBroadcast = false): void {
  if (!Number.isInteger(id) || id < 0 || (id > MAX_SERVO_ID && !(allowBroadcast && id === BROADCAST_ID))) {
    throw new ArmguardError(`Feetech: servo id must be an integer 0..${MAX_SERVO_ID}, got ${id}`, { field: 'id' });
  }
}
function checkSpan(address: number, length: number): void {
  if (!Number.isInteger(address) || address < 0 || address > 0xff) {
    throw new ArmguardError(`Feetech: register address must be 0..255, got ${address}`, { field: 'address' });
  }
  if (!Number.isInteger(length) || length < 1 || length > MAX_PARAMS - 1) {
    throw new ArmguardError(`Feetech: length must be 1..${MAX_PARAMS - 1}, got ${length}`, { field: 'length' });
  }
}
function checkIds(ids: readonly number[]): void {
  if (ids.length === 0)
    throw new ArmguardError('Feetech: sync operation needs at least one servo id', { field: 'ids' });
  for (const id of ids) checkId(id);
  if (new Set(ids).size !== ids.length)
    throw new ArmguardError(`Feetech: duplicate servo ids ${ids.join(',')}`, { field: 'ids' });
}

export class FeetechBus {
  readonly source: string;
  private readonly timers: Timers;
  private readonly clock: Clock;
  private readonly timeoutS: number;
  private readonly retries: number;
  private readonly budget: { maxErrors: number; windowS: number };
  private readonly writeReplies: boolean;
  private readonly framer = new PacketFramer();
  /** Isolated: a failing listener must not break the bus or the serialport event loop. */
  private readonly listeners = new Listeners<Parameters<FaultListener>>({ isolate: true });
  private readonly queue: Transaction[] = [];
  private inflight: Transaction | undefined;
  /** Set while the bus waits out late replies after a retried transaction. */
  private drainTimer: TimerHandle | undefined;
  private closeFault: Fault | undefined;
  private closingByCaller = false;
  private readonly lastErrorByte = new Map<number, number>();
  private readonly checksumErrorTimes: number[] = [];
  private lastBudgetFaultAt = -Infinity;
  private seenChecksumErrors = 0;
  private c = {
    tx: 0,
    rx: 0,
    txBytes: 0,
    rxBytes: 0,
    timeouts: 0,
    framingErrors: 0,
    retries: 0,
    unexpected: 0,
    servoErrorReplies: 0,
  };

  constructor(
    private link: ByteLink,
    options: FeetechBusOptions = {},
  ) {
    this.source = options.source ?? `feetech:${link.name}`;
    this.timers = options.timers ?? systemTimers;
    this.clock = options.clock ?? systemClock;
    this.timeoutS = options.timeoutS ?? 0.02;
    this.retries = Math.max(0, Math.floor(options.retries ?? 2));
    this.budget = options.checksumBudget ?? { maxErrors: 10, windowS: 1 };
    this.writeReplies = options.writeReplies ?? true;
    this.listen(link);
  }

  private listen(link: ByteLink): void {
    link.onData((chunk) => {
      if (this.link === link) this.onData(chunk);
    });
    link.onClose((reason) => {
      if (this.link === link) this.onLinkClosed(reason);
    });
  }

  /**
   * After a disconnect (not after `close()`): continue on a freshly opened link to the same bus.
   * Requests made while disconnected have already failed; new ones go out on `link`.
   */
  reattach(link: ByteLink): void {
    if (this.closingByCaller)
      throw new ArmguardError('Feetech: the bus was closed by its owner; open a new one', { field: 'link' });
    if (this.connected) throw new ArmguardError('Feetech: the bus is still connected', { field: 'link' });
    this.link = link;
    this.closeFault = undefined;
    this.framer.discard();
    this.listen(link);
  }

  /** Open a serial port (default 1 Mbps) and a bus on it. Never moves a servo. */
  static async open(options: SerialLinkOptions & FeetechBusOptions): Promise<BusResult<FeetechBus>> {
    const link = await openSerialLink(options);
    return link.ok ? ok(new FeetechBus(link.value, options)) : link;
  }

  get connected(): boolean {
    return this.closeFault === undefined && this.link.isOpen;
  }

  get counters(): BusCounters {
    const f = this.framer.counters;
    return { ...this.c, checksumErrors: f.checksumErrors, droppedBytes: f.droppedBytes };
  }

  /** Last error byte seen from `id` (0 = none or never heard from). */
  errorByte(id: number): number {
    return this.lastErrorByte.get(id) ?? 0;
  }

  /** Register a fault listener; returns an unsubscribe function. */
  onFault(listener: FaultListener): () => void {
    return this.listeners.add(listener);
  }

  /**
   * PING one servo. `reportTimeout: false` keeps a missing servo from raising a timeout fault
   * (for scanning); the result is still an error.
   */
  async ping(id: number, options: { reportTimeout?: boolean } = {}): Promise<BusResult<PingReply>> {
    checkId(id);
    const r = await this.transact(`PING ${id}`, () => encodePing(id), [id], 0, options.reportTimeout ?? true);
    if (!r.ok) return r;
    return ok({ id, errorByte: r.value.get(id)?.code ?? 0 });
  }

  /** READ `length` bytes from `address` of servo `id`. */
  async read(id: number, address: number, length: number): Promise<BusResult<Uint8Array>> {
    checkId(id);
    checkSpan(address, length);
    const r = await this.transact(
      `READ ${id} @${address}+${length}`,
      () => encodeRead(id, address, length),
      [id],
      length,
    );
    if (!r.ok) return r;
    return ok(r.value.get(id)?.params ?? new Uint8Array(length));
  }

  /** WRITE bytes at `address`; waits for the status reply unless broadcast or `writeReplies` is off. */
  async write(id: number, address: number, bytes: Uint8Array): Promise<BusResult<void>> {
    checkId(id, true);
    checkSpan(address, bytes.length);
    const expect = this.writeReplies && id !== BROADCAST_ID ? [id] : [];
    const r = await this.transact(
      `WRITE ${id} @${address}+${bytes.length}`,
      () => encodeWrite(id, address, bytes),
      expect,
      0,
    );
    return r.ok ? ok(undefined) : r;
  }

  /** REG_WRITE: stage a write, applied on ACTION. */
  async regWrite(id: number, address: number, bytes: Uint8Array): Promise<BusResult<void>> {
    checkId(id, true);
    checkSpan(address, bytes.length);
    const expect = this.writeReplies && id !== BROADCAST_ID ? [id] : [];
    const r = await this.transact(`REG_WRITE ${id} @${address}`, () => encodeRegWrite(id, address, bytes), expect, 0);
    return r.ok ? ok(undefined) : r;
  }

  /** ACTION to broadcast: apply staged REG_WRITEs. No reply. */
  async action(): Promise<BusResult<void>> {
    const r = await this.transact('ACTION', () => encodeAction(BROADCAST_ID), [], 0);
    return r.ok ? ok(undefined) : r;
  }

  /** SYNC_READ: one instruction, one status per servo. Missing servos are re-asked (bounded). */
  async syncRead(ids: readonly number[], address: number, length: number): Promise<BusResult<Map<number, Uint8Array>>> {
    checkIds(ids);
    checkSpan(address, length);
    const r = await this.transact(
      `SYNC_READ [${ids.join(',')}] @${address}+${length}`,
      (missing) => encodeSyncRead(address, length, missing),
      ids,
      length,
    );
    if (!r.ok) return r;
    const out = new Map<number, Uint8Array>();
    for (const id of ids) out.set(id, r.value.get(id)?.params ?? new Uint8Array(length));
    return ok(out);
  }

  /** SYNC_WRITE `length` bytes per servo at `address` (broadcast, no reply). */
  async syncWrite(address: number, length: number, data: ReadonlyMap<number, Uint8Array>): Promise<BusResult<void>> {
    checkIds([...data.keys()]);
    checkSpan(address, length);
    for (const [id, bytes] of data) {
      if (bytes.length !== length) {
        throw new ArmguardError(`Feetech SYNC_WRITE: servo ${id} has ${bytes.length} bytes, expected ${length}`, {
          field: 'data',
        });
      }
    }
    const r = await this.transact(
      `SYNC_WRITE @${address}+${length}`,
      () => encodeSyncWrite(address, length, data),
      [],
      0,
    );
    return r.ok ? ok(undefined) : r;
  }

  /** Read one named register, decoded (sign-magnitude where signed). */
  async readRegister(id: number, name: RegisterName): Promise<BusResult<number>> {
    const spec: RegisterSpec = STS3215_REGISTERS[name];
    const r = await this.read(id, spec.address, spec.size);
    return r.ok ? ok(decodeRegister(spec, r.value)) : r;
  }

  /** Write one named register. Rejects on a read-only register or a value that does not fit. */
  async writeRegister(id: number, name: RegisterName, value: number): Promise<BusResult<void>> {
    return this.write(id, STS3215_REGISTERS[name].address, encodeChecked(name, value));
  }

  async syncReadRegister(ids: readonly number[], name: RegisterName): Promise<BusResult<Map<number, number>>> {
    const spec: RegisterSpec = STS3215_REGISTERS[name];
    const r = await this.syncRead(ids, spec.address, spec.size);
    if (!r.ok) return r;
    const out = new Map<number, number>();
    for (const [id, bytes] of r.value) out.set(id, decodeRegister(spec, bytes));
    return ok(out);
  }

  async syncWriteRegister(name: RegisterName, values: ReadonlyMap<number, number>): Promise<BusResult<void>> {
    const spec: RegisterSpec = STS3215_REGISTERS[name];
    const data = new Map<number, Uint8Array>();
    for (const [id, v] of values) data.set(id, encodeChecked(name, v));
    return this.syncWrite(spec.address, spec.size, data);
  }

  /**
   * Everything each servo reports (position, velocity, load, voltage, temperature, status, moving,
   * current) with one SYNC_READ of the contiguous block 56..70.
   */
  async readFullState(ids: readonly number[]): Promise<BusResult<Map<number, ServoState>>> {
    checkIds(ids);
    const { address, length } = FULL_STATE_BLOCK;
    const r = await this.transact(
      `SYNC_READ state [${ids.join(',')}]`,
      (missing) => encodeSyncRead(address, length, missing),
      ids,
      length,
    );
    if (!r.ok) return r;
    const out = new Map<number, ServoState>();
    for (const id of ids) {
      const p = r.value.get(id);
      if (p) out.set(id, decodeFullState(id, p.code, p.params));
    }
    return ok(out);
  }

  /** Close the port. Pending requests resolve with a disconnect fault; no fault is reported. */
  async close(): Promise<void> {
    this.closingByCaller = true;
    await this.link.close();
  }

  // ---- transaction engine ----

  private transact(
    label: string,
    build: (ids: readonly number[]) => Uint8Array,
    ids: readonly number[],
    replyLength: number,
    reportTimeout = true,
  ): Promise<BusResult<Map<number, Packet>>> {
    if (this.closeFault) return Promise.resolve(err(this.closeFault));
    return new Promise((resolve) => {
      this.queue.push({
        label,
        build,
        ids,
        replyLength,
        responses: new Map(),
        reportTimeout,
        resolve,
        attempt: 0,
        rxAtSend: 0,
        validBytes: 0,
        timer: undefined,
        firstSentAt: NaN,
        lastSentAt: NaN,
      });
      if (!this.inflight && !this.drainTimer) this.startNext();
    });
  }

  private startNext(): void {
    const t = this.queue.shift();
    this.inflight = t;
    if (t) this.send(t, t.ids);
  }

  private send(t: Transaction, ids: readonly number[]): void {
    // Half-duplex master: anything buffered before a new request is a stale reply fragment.
    this.framer.discard();
    // Only replies of the expected length are acceptable; a longer LEN is noise, not worth waiting for.
    this.framer.setMaxParams(t.replyLength);
    const packet = t.build(ids);
    const now = this.clock.now();
    if (t.attempt === 0) {
      t.firstSentAt = now;
      t.rxAtSend = this.c.rxBytes;
    }
    t.lastSentAt = now;
    this.c.tx++;
    this.c.txBytes += packet.length;
    // Arm the timeout first: a link may deliver the reply (or its write callback) before write() returns.
    if (t.ids.length === 0) {
      t.timer = this.timers.setTimeout(() => this.onWriteTimeout(t), this.timeoutS);
      this.link.write(packet, (e) => {
        if (this.inflight !== t) return;
        if (e) this.finish(t, err(this.closeFault ?? this.disconnectFault(e.message)));
        else this.finish(t, ok(t.responses));
      });
      return;
    }
    t.timer = this.timers.setTimeout(() => this.onTimeout(t), this.timeoutS);
    this.link.write(packet);
  }

  /** A no-reply request whose bytes the link has not taken within the timeout (wedged adapter). */
  private onWriteTimeout(t: Transaction): void {
    if (this.inflight !== t) return;
    this.c.timeouts++;
    const fault: Fault = {
      kind: 'timeout',
      source: this.source,
      detail: `${t.label}: the link did not complete the write within ${this.timeoutS}s`,
    };
    if (t.reportTimeout) this.emit(fault);
    this.finish(t, err(fault));
  }

  private onTimeout(t: Transaction): void {
    if (this.inflight !== t) return;
    const missing = t.ids.filter((id) => !t.responses.has(id));
    if (t.attempt < this.retries) {
      t.attempt++;
      this.c.retries++;
      this.send(t, missing);
      return;
    }
    // Bytes that were no valid reply: garbage on the line, not a silent servo. Counted apart.
    const garbage = this.c.rxBytes - t.rxAtSend - t.validBytes;
    let fault: Fault;
    if (garbage > 0) {
      this.c.framingErrors++;
      fault = {
        kind: 'framing',
        source: this.source,
        detail: `${t.label}: ${garbage} byte(s) arrived that were no valid reply; no reply from servo(s) ${missing.join(',')} after ${t.attempt + 1} attempt(s) (noise, wrong baud rate or another master on the bus?)`,
        servoIds: missing,
      };
    } else {
      this.c.timeouts++;
      fault = {
        kind: 'timeout',
        source: this.source,
        detail: `${t.label}: no reply from servo(s) ${missing.join(',')} after ${t.attempt + 1} attempt(s) of ${this.timeoutS}s`,
        servoIds: missing,
      };
    }
    if (t.reportTimeout) this.emit(fault);
    this.finish(t, err(fault));
  }

  private finish(t: Transaction, r: BusResult<Map<number, Packet>>): void {
    t.timer?.cancel();
    t.timer = undefined;
    if (this.inflight === t) this.inflight = undefined;
    t.resolve(r);
    if (this.inflight || this.closeFault) return;
    if (t.attempt === 0) {
      this.startNext();
      return;
    }
    // A retried request may still be answered late, once per attempt. The protocol has no sequence
    // numbers, so such a reply would be taken as the answer to the next request for the same id and
    // length (wrong register, wrong data). Wait out the attempts' spread plus one timeout and drop
    // whatever arrives meanwhile.
    const spread = Math.max(0, t.lastSentAt - t.firstSentAt);
    this.drainTimer = this.timers.setTimeout(() => {
      this.drainTimer = undefined;
      if (this.closeFault) return;
      this.framer.discard();
      if (!this.inflight) this.startNext();
    }, spread + this.timeoutS);
  }

  private onData(chunk: Uint8Array): void {
    this.c.rxBytes += chunk.length;
    this.framer.push(chunk, (p) => this.onPacket(p));
    const errors = this.framer.counters.checksumErrors;
    if (errors > this.seenChecksumErrors) {
      const now = this.clock.now();
      for (; this.seenChecksumErrors < errors; this.seenChecksumErrors++) this.noteChecksumError(now);
    }
  }

  private onPacket(p: Packet): void {
    this.c.rx++;
    const t = this.inflight;
    if (!t || !t.ids.includes(p.id) || t.responses.has(p.id) || p.params.length !== t.replyLength) {
      this.c.unexpected++;
      return;
    }
    this.noteErrorByte(p.id, p.code);
    t.validBytes += p.params.length + 6; // FF FF ID LEN ERR params CHK
    t.responses.set(p.id, p);
    if (t.responses.size === t.ids.length) this.finish(t, ok(t.responses));
  }

  private noteErrorByte(id: number, code: number): void {
    if (code !== 0) this.c.servoErrorReplies++;
    const previous = this.lastErrorByte.get(id) ?? 0;
    this.lastErrorByte.set(id, code);
    // Edge-triggered: a servo reporting the same error on every read raises one fault, not one per read.
    if (code !== 0 && code !== previous) {
      const bits = decodeErrorBits(code);
      this.emit({
        kind: 'servo-error',
        source: this.source,
        servoId: id,
        bits,
        detail: `servo ${id}: ${bits.join(', ')} (error byte 0x${code.toString(16).padStart(2, '0')})`,
      });
    }
  }

  private noteChecksumError(now: number): void {
    const times = this.checksumErrorTimes;
    times.push(now);
    while (times.length > 0 && now - (times[0] ?? now) > this.budget.windowS) times.shift();
    if (times.length > this.budget.maxErrors && now - this.lastBudgetFaultAt > this.budget.windowS) {
      this.lastBudgetFaultAt = now;
      this.emit({
        kind: 'checksum-budget',
        source: this.source,
        detail: `${times.length} checksum errors within ${this.budget.windowS}s (budget ${this.budget.maxErrors})`,
      });
    }
  }

  private disconnectFault(reason: string): Fault {
    return { kind: 'disconnect', source: this.source, detail: reason };
  }

  private onLinkClosed(reason: string): void {
    if (this.closeFault) return;
    const fault = this.disconnectFault(reason);
    this.closeFault = fault;
    if (!this.closingByCaller) this.emit(fault);
    this.drainTimer?.cancel();
    this.drainTimer = undefined;
    const pending = [...(this.inflight ? [this.inflight] : []), ...this.queue.splice(0)];
    this.inflight = undefined;
    for (const t of pending) {
      t.timer?.cancel();
      t.resolve(err(fault));
    }
  }

  private emit(fault: Fault): void {
    const now = this.clock.now();
    this.listeners.emit(fault, now);
  }
}

function encodeChecked(name: RegisterName, value: number): Uint8Array {
  const spec: RegisterSpec = STS3215_REGISTERS[name];
  if (spec.access === 'r') throw new ArmguardError(`Feetech: register ${name} is read-only`, { field: name });
  const bytes = encodeRegister(spec, value);
  if (!bytes) {
    const range = spec.signBit !== undefined ? `±${(1 << spec.signBit) - 1}` : `0..${(1 << (8 * spec.size)) - 1}`;
    throw new ArmguardError(`Feetech: ${name} = ${value} does not fit (integer ${range})`, { field: name });
  }
  return bytes;
}
