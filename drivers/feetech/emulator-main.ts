#!/usr/bin/env node
/**
 * Run emulated STS3215 servos on a serial port or pty, for demos, the benchmark and dry runs of
 * hardware procedures:
 *
 *   armguard-feetech-emulator --port /tmp/x2   # serve on an existing tty (checkout: npx tsx drivers/feetech/emulator-main.ts)
 *   armguard-feetech-emulator --pty            # spawn socat, print driver path
 *
 * Options: --ids 1,2,3,4,5,6  --return-delay <2 µs units, default 0>  --physics track|none
 * Prints `ready <driver-side path>` on stdout once serving; exits when the port goes away.
 */
import { parseArgs } from 'node:util';
import { FeetechEmulator } from './emulator/emulator.js';
import { goalTrackingPhysics } from './emulator/physics.js';
import { serveEmulatorOnPort } from './emulator/serve.js';
import { type PtyPair, openPtyPair } from './socat-pty.js';
import { systemClock } from '../../src/platform/system-clock.js';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      pty: { type: 'boolean', default: false },
      ids: { type: 'string', default: '1,2,3,4,5,6' },
      'return-delay': { type: 'string', default: '0' },
      physics: { type: 'string', default: 'track' },
    },
  });
  const ids = values.ids.split(',').map((s) => Number(s.trim()));
  if (ids.some((id) => !Number.isInteger(id) || id < 0 || id > 253)) {
    console.error(`--ids: expected comma-separated integers 0..253, got '${values.ids}'`);
    return 2;
  }
  const returnDelay = Number(values['return-delay']);
  if (!Number.isInteger(returnDelay) || returnDelay < 0 || returnDelay > 255) {
    console.error(`--return-delay: expected an integer 0..255 (2 µs units), got '${values['return-delay']}'`);
    return 2;
  }
  if (values.physics !== 'track' && values.physics !== 'none') {
    console.error(`--physics: expected 'track' or 'none', got '${values.physics}'`);
    return 2;
  }
  if (!values.port && !values.pty) {
    console.error('give --port <tty> to serve on, or --pty to create a socat pty pair');
    return 2;
  }

  let pair: PtyPair | undefined;
  let servePath = values.port;
  let driverPath = values.port;
  if (values.pty) {
    pair = await openPtyPair();
    servePath = pair.b;
    driverPath = pair.a;
  }
  const emu = new FeetechEmulator();
  for (const id of ids) emu.addServo(id, { Return_Delay_Time: returnDelay });
  if (values.physics === 'track') emu.setPhysics(goalTrackingPhysics(systemClock));

  const served = await serveEmulatorOnPort(emu, { path: servePath ?? '' });
  if (!served.ok) {
    console.error(`emulator: ${served.detail}`);
    await pair?.kill();
    return 1;
  }
  const shutdown = async (): Promise<void> => {
    if (served.link.isOpen) await served.link.close();
    await pair?.kill();
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  console.log(`ready ${driverPath}`);
  console.error(
    `emulating STS3215 ids ${ids.join(',')} on ${servePath} (return delay ${returnDelay * 2} µs, physics ${values.physics})`,
  );
  await new Promise<void>((resolve) => served.link.onClose(() => resolve()));
  await pair?.kill();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`emulator: ${(e as Error).message}`);
    process.exit(1);
  },
);
