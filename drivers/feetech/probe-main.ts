#!/usr/bin/env node
/**
 * Read-only bus probe: ping servos, then read the full state a few times and print it. Never
 * writes a register, so it is safe on a powered arm.
 *
 *   armguard-feetech-probe --port /dev/ttyACM0 [--ids 1,2,3,4,5,6] [--cycles 5]
 */
import { parseArgs } from 'node:util';
import { FeetechBus } from './bus.js';
import { decodeErrorBits } from './protocol.js';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      ids: { type: 'string', default: '1,2,3,4,5,6' },
      cycles: { type: 'string', default: '5' },
      baud: { type: 'string', default: '1000000' },
    },
  });
  if (!values.port) {
    console.error('--port <tty> is required (e.g. /dev/ttyACM0, or the path printed by emulator-main --pty)');
    return 2;
  }
  const ids = values.ids.split(',').map((s) => Number(s.trim()));
  const cycles = Number(values.cycles);
  const baudRate = Number(values.baud);
  if (ids.some((id) => !Number.isInteger(id) || id < 0 || id > 253) || !Number.isInteger(cycles) || cycles < 1) {
    console.error(`bad --ids '${values.ids}' or --cycles '${values.cycles}'`);
    return 2;
  }
  const opened = await FeetechBus.open({ path: values.port, baudRate, timeoutS: 0.05 });
  if (!opened.ok) {
    console.error(`${opened.error.kind}: ${opened.error.kind === 'disconnect' ? opened.error.detail : ''}`);
    return 1;
  }
  const bus = opened.value;
  bus.onFault((f) => console.error(`fault: ${JSON.stringify(f)}`));
  for (const id of ids) {
    const p = await bus.ping(id, { reportTimeout: false });
    const model = p.ok ? await bus.readRegister(id, 'Model_Number') : undefined;
    console.log(
      `servo ${id}: ${p.ok ? `answers, model ${model?.ok ? model.value : '?'}, errors [${decodeErrorBits(p.value.errorByte).join(',')}]` : 'no answer'}`,
    );
  }
  for (let i = 0; i < cycles; i++) {
    const r = await bus.readFullState(ids);
    if (!r.ok) {
      console.error(`cycle ${i}: ${r.error.kind}`);
      continue;
    }
    for (const s of r.value.values()) {
      console.log(
        `  #${i} id ${s.id}: pos ${s.position} vel ${s.velocity} load ${s.load} V ${(s.voltage / 10).toFixed(1)} T ${s.temperature}°C ` +
          `I ${s.current} moving ${s.moving ? 1 : 0} err [${decodeErrorBits(s.errorByte).join(',')}]`,
      );
    }
  }
  console.log(`counters ${JSON.stringify(bus.counters)}`);
  await bus.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`probe: ${(e as Error).message}`);
    process.exit(1);
  },
);
