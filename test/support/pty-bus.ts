/**
 * A Feetech emulator served on one end of a real socat pty pair, and the real FeetechBus on the
 * other: the serial path exactly as on hardware, for driver tests.
 */
import { FeetechBus, openPtyPair, serveEmulatorOnPort, type FeetechEmulator } from '../../drivers/feetech/index.js';

export interface PtyBus {
  bus: FeetechBus;
  close(): Promise<void>;
}

export async function emulatorOnPty(emu: FeetechEmulator, busTimeoutS = 0.1): Promise<PtyBus> {
  const pair = await openPtyPair();
  const s = await serveEmulatorOnPort(emu, { path: pair.b });
  if (!s.ok) {
    await pair.kill();
    throw new Error(s.detail);
  }
  const b = await FeetechBus.open({ path: pair.a, timeoutS: busTimeoutS, retries: 2 });
  if (!b.ok) {
    await s.link.close();
    await pair.kill();
    throw new Error(JSON.stringify(b.error));
  }
  const bus = b.value;
  return {
    bus,
    async close() {
      if (bus.connected) await bus.close();
      await s.link.close();
      await pair.kill();
    },
  };
}
