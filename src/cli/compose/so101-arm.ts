/**
 * Connect the SO-101 for `armguard run`: on a real tty, or `--emulator` — emulated STS3215 servos
 * with the simulated-arm physics served on one end of a socat pty pair while the real serial driver
 * opens the other end, so the whole serialport path runs. Connecting only pings (the arm does not move).
 */
import { AnalyticFreeMotionModel, type FreeMotionModel } from '../../calibration/free-motion.js';
import type { So101Calibration } from '../../calibration/so101.js';
import type { Fault } from '../../ports/index.js';
import type { Clock, TimerHandle, Timers } from '../../util/clock.js';
import { err, ok, type Result } from '../../util/result.js';
import {
  FeetechBus,
  FeetechEmulator,
  openPtyPair,
  openSerialLink,
  serveEmulatorOnPort,
  type ByteLink,
  type PtyPair,
} from '../../../drivers/feetech/index.js';
import { So101Arm } from '../../../drivers/so101/arm.js';
import { addSo101Servos } from '../../../drivers/so101/emulated-arm.js';
import { DEFAULT_SIM_TRUTH, SimulatedSo101 } from '../../../drivers/so101/sim-physics.js';

export interface So101Connection {
  arm: So101Arm;
  bus: FeetechBus;
  /** Port path the driver opened. */
  path: string;
  /** Present only with --emulator. */
  emulated?: { emulator: FeetechEmulator; sim: SimulatedSo101; pty: PtyPair; link: ByteLink };
  close(): Promise<void>;
}

/**
 * Per-attempt serial response timeout on a real port (s). A USB serial adapter delivers a reply
 * only when its latency timer fires (16 ms by default on FTDI chips; the Feetech SDK allows
 * 2 × 16 ms + 2 ms per packet), so a 20 ms timeout times out replies that are on their way.
 */
export const DEFAULT_PORT_TIMEOUT_S = 0.05;

export interface ConnectOptions {
  calibration: So101Calibration;
  /** Default: the calibration's analytic model (drivers/so101/onnx-residual.ts so101FreeMotion adds the residual). */
  freeMotion?: FreeMotionModel;
  clock: Clock;
  timers: Timers;
  /** Per-attempt bus response timeout (s). */
  timeoutS?: number;
  /** Arm-side heartbeat watchdog (s). */
  watchdogS?: number;
  /** Reconnect attempts and their outcome are told here. */
  log?: (line: string) => void;
  /** With the emulator: added to every servo reply (s), as a slow USB adapter or a loaded host would; the read cycle slows with it. */
  emulatorReplyDelayS?: number;
}

/** Back-off between reconnect attempts after a serial disconnect (s): first, doubling up to max. */
export const RECONNECT_BACKOFF = { firstS: 0.2, maxS: 2 } as const;

/**
 * After the serial link drops (adapter unplugged, pty gone) the bus is reopened on the same path,
 * with back-off, for as long as the session runs. The gate's hold is not touched: it stays latched
 * until an operator releases (and the faults of the outage must have gone quiet).
 */
export class BusReconnector {
  private timer: TimerHandle | undefined;
  private delay: number = RECONNECT_BACKOFF.firstS;
  private attempts = 0;
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly bus: FeetechBus,
    private readonly path: string,
    private readonly ids: readonly number[],
    private readonly timers: Timers,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.unsubscribe = bus.onFault((f) => {
      if (f.kind === 'disconnect' && !bus.connected) this.schedule();
    });
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    if (this.attempts === 0)
      this.log(
        `serial: ${this.path} disconnected; reconnecting (back-off ${RECONNECT_BACKOFF.firstS}–${RECONNECT_BACKOFF.maxS} s)`,
      );
    this.timer = this.timers.setTimeout(() => void this.attempt(), this.delay);
  }

  private async attempt(): Promise<void> {
    this.timer = undefined;
    if (this.stopped || this.bus.connected) return;
    this.attempts++;
    const r = await openSerialLink({ path: this.path });
    if (this.stopped) {
      if (r.ok) await r.value.close();
      return;
    }
    if (!r.ok) {
      this.delay = Math.min(RECONNECT_BACKOFF.maxS, this.delay * 2);
      this.schedule();
      return;
    }
    this.bus.reattach(r.value);
    const missing: number[] = [];
    for (const id of this.ids) if (!(await this.bus.ping(id, { reportTimeout: false })).ok) missing.push(id);
    this.log(
      `serial: reconnected to ${this.path} after ${this.attempts} attempt(s)${missing.length ? `; servo(s) ${missing.join(',')} do not answer yet` : '; all servos answer'}; the arm stays held until an operator releases`,
    );
    this.attempts = 0;
    this.delay = RECONNECT_BACKOFF.firstS;
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.unsubscribe();
  }
}

async function connectOnPath(
  path: string,
  o: ConnectOptions,
): Promise<Result<{ arm: So101Arm; bus: FeetechBus }, Fault>> {
  const b = await FeetechBus.open({
    path,
    timers: o.timers,
    clock: o.clock,
    timeoutS: o.timeoutS ?? DEFAULT_PORT_TIMEOUT_S,
    retries: 2,
  });
  if (!b.ok) return b;
  const a = await So101Arm.connect({
    bus: b.value,
    calibration: o.calibration,
    freeMotion: o.freeMotion ?? new AnalyticFreeMotionModel(o.calibration.freeMotion),
    clock: o.clock,
    timers: o.timers,
    ...(o.watchdogS !== undefined ? { watchdogS: o.watchdogS } : {}),
  });
  if (!a.ok) {
    await b.value.close();
    return a;
  }
  return ok({ arm: a.value, bus: b.value });
}

/** A real arm on `path` (e.g. /dev/ttyACM0). */
export async function connectSo101(path: string, o: ConnectOptions): Promise<Result<So101Connection, Fault>> {
  const c = await connectOnPath(path, o);
  if (!c.ok) return c;
  const { arm, bus } = c.value;
  const reconnector = new BusReconnector(bus, path, arm.ids, o.timers, o.log);
  return ok({
    arm,
    bus,
    path,
    close: async () => {
      reconnector.stop();
      arm.close();
      if (bus.connected) await bus.close();
    },
  });
}

/**
 * The emulated arm behind a real pty. Servos start powered (torque on) at mid-range, as a follower
 * arm standing ready; the simulated physics runs on `o.clock`.
 */
export async function connectEmulatedSo101(o: ConnectOptions): Promise<Result<So101Connection, Fault>> {
  const cal = o.calibration;
  const emulator = new FeetechEmulator({
    timers: o.timers,
    ...(o.emulatorReplyDelayS !== undefined ? { extraReplyDelayS: o.emulatorReplyDelayS } : {}),
  });
  const { ids, ticks } = addSo101Servos(emulator, cal, { torqueEnabled: true });
  const sim = new SimulatedSo101(emulator, ids, ticks, DEFAULT_SIM_TRUTH, o.clock);
  sim.install();
  let pty: PtyPair;
  try {
    pty = await openPtyPair();
  } catch (e) {
    return err({ kind: 'disconnect', source: 'emulator', detail: (e as Error).message });
  }
  const served = await serveEmulatorOnPort(emulator, { path: pty.b });
  if (!served.ok) {
    await pty.kill();
    return err({ kind: 'disconnect', source: 'emulator', detail: served.detail });
  }
  // The emulator answers from this same process's event loop: allow for its latency on a busy host.
  const c = await connectOnPath(pty.a, { ...o, timeoutS: o.timeoutS ?? 0.1 });
  if (!c.ok) {
    if (served.link.isOpen) await served.link.close();
    await pty.kill();
    return c;
  }
  const { arm, bus } = c.value;
  const reconnector = new BusReconnector(bus, pty.a, arm.ids, o.timers, o.log);
  return ok({
    arm,
    bus,
    path: pty.a,
    emulated: { emulator, sim, pty, link: served.link },
    close: async () => {
      reconnector.stop();
      arm.close();
      if (bus.connected) await bus.close();
      if (served.link.isOpen) await served.link.close();
      await pty.kill();
    },
  });
}
