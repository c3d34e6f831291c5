/** Serve an emulator on a ByteLink (e.g. one end of a socat pty pair opened with real serialport). */
import type { ByteLink, SerialLinkOptions } from '../link.js';
import { openSerialLink } from '../link.js';
import type { FeetechEmulator } from './emulator.js';

export function serveEmulatorOnLink(emulator: FeetechEmulator, link: ByteLink): void {
  link.onData((chunk) => emulator.feed(chunk));
  emulator.onTransmit((bytes) => {
    if (link.isOpen) link.write(bytes);
  });
}

/** Open `path` with real serialport and answer as the emulated servos. */
export async function serveEmulatorOnPort(
  emulator: FeetechEmulator,
  options: SerialLinkOptions,
): Promise<{ ok: true; link: ByteLink } | { ok: false; detail: string }> {
  const r = await openSerialLink(options);
  if (!r.ok) return { ok: false, detail: r.error.kind === 'disconnect' ? r.error.detail : r.error.kind };
  serveEmulatorOnLink(emulator, r.value);
  return { ok: true, link: r.value };
}
