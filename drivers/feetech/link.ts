/**
 * The byte link under the bus: a real `serialport` SerialPort (hardware tty, a socat pty, or an
 * injected binding such as @serialport/binding-mock). The bus only sees this small interface.
 */
import { SerialPort } from 'serialport';
import type { BindingInterface } from '@serialport/bindings-interface' with { 'resolution-mode': 'require' };
import type { Fault } from '../../src/ports/index.js';
import { type Result, err, ok } from '../../src/util/result.js';

export interface ByteLink {
  /** Human-readable name (the port path), used as fault source. */
  readonly name: string;
  readonly isOpen: boolean;
  /** Queue bytes for transmission; `done` is called once the OS took them (or with the error). */
  write(bytes: Uint8Array, done?: (error: Error | null) => void): void;
  onData(listener: (chunk: Uint8Array) => void): void;
  /** Called once when the link closes for any reason (disconnect, error, or `close()`). */
  onClose(listener: (reason: string) => void): void;
  close(): Promise<void>;
}

export const FEETECH_BAUD_RATE = 1_000_000;

export interface SerialLinkOptions {
  path: string;
  /** Default 1_000_000 (STS3215 factory rate). Ptys ignore it. */
  baudRate?: number;
  /** Injected serialport binding (e.g. MockBinding); default: the platform binding. */
  binding?: BindingInterface;
}

class SerialPortLink implements ByteLink {
  private closedReason: string | undefined;
  private readonly closeListeners: ((reason: string) => void)[] = [];

  constructor(
    private readonly port: SerialPort,
    readonly name: string,
  ) {
    port.on('close', (e: Error | null | undefined) => this.markClosed(e ? `port closed: ${e.message}` : 'port closed'));
    port.on('error', (e: Error) => {
      this.markClosed(`port error: ${e.message}`);
      if (port.isOpen) port.close(() => undefined);
    });
  }

  get isOpen(): boolean {
    return this.closedReason === undefined && this.port.isOpen;
  }

  write(bytes: Uint8Array, done?: (error: Error | null) => void): void {
    if (!this.isOpen) {
      done?.(new Error(`${this.name}: ${this.closedReason ?? 'not open'}`));
      return;
    }
    this.port.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (e) => done?.(e ?? null));
  }

  onData(listener: (chunk: Uint8Array) => void): void {
    this.port.on('data', listener);
  }

  onClose(listener: (reason: string) => void): void {
    if (this.closedReason !== undefined) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.port.isOpen) {
        this.markClosed('closed by caller');
        resolve();
        return;
      }
      this.port.close(() => {
        this.markClosed('closed by caller');
        resolve();
      });
    });
  }

  private markClosed(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const l of this.closeListeners.splice(0)) l(reason);
  }
}

/** Open a serial port as a ByteLink. Failure to open is a typed `disconnect` fault, not a throw. */
export function openSerialLink(options: SerialLinkOptions): Promise<Result<ByteLink, Fault>> {
  const baudRate = options.baudRate ?? FEETECH_BAUD_RATE;
  const source = `feetech:${options.path}`;
  return new Promise((resolve) => {
    let port: SerialPort;
    try {
      // SerialPort's own options spread after its default binding, so an injected binding wins;
      // its typings omit `binding`, hence the cast.
      const opts = {
        path: options.path,
        baudRate,
        autoOpen: false,
        ...(options.binding ? { binding: options.binding } : {}),
      };
      port = new SerialPort(opts as ConstructorParameters<typeof SerialPort>[0]);
    } catch (e) {
      resolve(err({ kind: 'disconnect', source, detail: `cannot open ${options.path}: ${(e as Error).message}` }));
      return;
    }
    port.open((e) => {
      if (e) resolve(err({ kind: 'disconnect', source, detail: `cannot open ${options.path}: ${e.message}` }));
      else resolve(ok(new SerialPortLink(port, options.path)));
    });
  });
}
