/**
 * In-process transport for the emulator through serialport's own mock binding: a BindingInterface
 * that delegates to @serialport/binding-mock and feeds every written buffer to the emulator, whose
 * replies come back through MockPortBinding.emitData. The driver runs its real SerialPort code.
 */
import { SerialPortMock } from 'serialport';
import type { MockPortBinding } from '@serialport/binding-mock' with { 'resolution-mode': 'require' };
import type {
  BindingInterface,
  BindingPortInterface,
  OpenOptions,
  PortInfo,
} from '@serialport/bindings-interface' with { 'resolution-mode': 'require' };
import type { FeetechEmulator } from './emulator.js';

// @serialport/binding-mock's ESM entry ships no typings; serialport re-exposes the same object typed.
const MockBinding = SerialPortMock.binding;

export interface EmulatorMockBinding extends BindingInterface {
  /** Make the open port fail as an unplugged USB adapter does (serialport reports a disconnect). */
  disconnect(): void;
}

class EmulatedMockPort implements BindingPortInterface {
  private failRead: ((e: Error) => void) | undefined;
  private readonly failed: Promise<never>;

  constructor(
    readonly inner: MockPortBinding,
    private readonly emulator: FeetechEmulator,
  ) {
    this.failed = new Promise<never>((_, reject) => (this.failRead = reject));
    this.failed.catch(() => undefined);
  }
  get openOptions(): Required<OpenOptions> {
    return this.inner.openOptions;
  }
  get isOpen(): boolean {
    return this.inner.isOpen;
  }
  set isOpen(v: boolean) {
    this.inner.isOpen = v;
  }
  disconnect(): void {
    this.failRead?.(new Error('emulated device disconnected'));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }> {
    return Promise.race([this.inner.read(buffer, offset, length), this.failed]);
  }
  async write(buffer: Buffer): Promise<void> {
    await this.inner.write(buffer);
    this.emulator.feed(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
  }
  update(options: { baudRate: number }): Promise<void> {
    return this.inner.update(options);
  }
  set(options: Parameters<MockPortBinding['set']>[0]): Promise<void> {
    return this.inner.set(options);
  }
  get(): ReturnType<MockPortBinding['get']> {
    return this.inner.get();
  }
  getBaudRate(): Promise<{ baudRate: number }> {
    return this.inner.getBaudRate();
  }
  flush(): Promise<void> {
    return this.inner.flush();
  }
  drain(): Promise<void> {
    return this.inner.drain();
  }
}

/**
 * A serialport binding whose ports are wired to `emulator`. Creates the mock port `path` (the
 * mock binding's registry is global, so pick a unique path per test).
 */
export function createEmulatorMockBinding(emulator: FeetechEmulator, path: string): EmulatorMockBinding {
  MockBinding.createPort(path, { echo: false, record: false });
  let current: EmulatedMockPort | undefined;
  emulator.onTransmit((bytes) => {
    if (current?.isOpen) current.inner.emitData(Buffer.from(bytes));
  });
  return {
    async list(): Promise<PortInfo[]> {
      return MockBinding.list();
    },
    async open(options: OpenOptions): Promise<BindingPortInterface> {
      current = new EmulatedMockPort(await MockBinding.open(options), emulator);
      return current;
    },
    disconnect(): void {
      current?.disconnect();
    },
  };
}
