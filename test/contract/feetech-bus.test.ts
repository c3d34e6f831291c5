import {
  FeetechBus,
  FeetechEmulator,
  createEmulatorMockBinding,
  openPtyPair,
  serveEmulatorOnPort,
} from '../../drivers/feetech/index.js';
import { feetechBusContract } from './support/feetech-bus.contract.js';

let seq = 0;

feetechBusContract({
  name: 'serialport mock binding (in-process emulator)',
  async setup({ timeoutS, retries }) {
    const emu = new FeetechEmulator({ ids: [1, 2, 3, 4, 5, 6] });
    const path = `/dev/feetech-contract-${process.pid}-${++seq}`;
    const binding = createEmulatorMockBinding(emu, path);
    const r = await FeetechBus.open({ path, binding, timeoutS, retries });
    if (!r.ok) throw new Error(r.error.kind);
    const bus = r.value;
    return {
      bus,
      emu,
      unplug: async () => binding.disconnect(),
      teardown: async () => {
        if (bus.connected) await bus.close();
      },
    };
  },
});

feetechBusContract({
  name: 'real tty: socat pty pair, emulator on the far end',
  async setup({ timeoutS, retries }) {
    const pair = await openPtyPair();
    const emu = new FeetechEmulator({ ids: [1, 2, 3, 4, 5, 6] });
    const served = await serveEmulatorOnPort(emu, { path: pair.b });
    if (!served.ok) {
      await pair.kill();
      throw new Error(served.detail);
    }
    const r = await FeetechBus.open({ path: pair.a, timeoutS, retries });
    if (!r.ok) {
      await served.link.close();
      await pair.kill();
      throw new Error(JSON.stringify(r.error));
    }
    const bus = r.value;
    return {
      bus,
      emu,
      unplug: () => pair.kill(),
      teardown: async () => {
        if (bus.connected) await bus.close();
        if (served.link.isOpen) await served.link.close();
        await pair.kill();
      },
    };
  },
});
