/**
 * `armguard doctor [so101|franka]`: checks what a first run needs and prints each result with the
 * fix; exit 0 only when every check passes. The checks live in src/doctor; this wires the real
 * host (/, the process's groups and environment), the Feetech bus and rclnodejs.
 */
import { faultDetail } from '../../schema/fault.js';
import { readFile, writeFile } from 'node:fs/promises';
import { FeetechBus } from '../../../drivers/feetech/bus.js';
import { loadRclnodejsRos } from '../../../drivers/ros2/rclnodejs-adapter.js';
import { parseSo101Calibration } from '../../calibration/so101.js';
import { parseFrankaNodeConfig } from '../../nodes/franka-node-config.js';
import { allPassed, formatResults, runChecks } from '../../doctor/checks.js';
import { FRANKA_CHECKS, frankaTopics, type RclnodejsProbe } from '../../doctor/franka-checks.js';
import { rootedHost } from '../../doctor/host.js';
import { SO101_CHECKS, type ServoBusPort, type So101DoctorContext } from '../../doctor/so101-checks.js';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import { userOrPackagePath } from '../../platform/package-files.js';

const HELP = `usage: armguard doctor [so101|franka] [options]

Checks what a first run needs, prints each result and, for each failure, the fix. Exit code 0 only
when every check passes. Read-only: pings and register reads on the servo bus, never a write; ROS
topics are only subscribed to.

SO-101 (default):
  serial adapter present (/dev/serial/by-id), read/write permission (dialout group, a udev rule for
  the adapter), ModemManager/brltty not running, USB latency timer, servos 1–6 answering at 1 Mbps
  with model (777 = STS3215) and firmware, supply voltage against --supply, calibration file present
  and matching the servos' homing offsets.
  --port <tty>          the adapter (default: the only entry of /dev/serial/by-id)
  --supply 7.4|12       the servos' nominal supply (V): 7.4 V (C001) or 12 V (C018) follower
  --calibration <yaml>  the arm's calibration (armguard calibrate so101)
  --write-udev <file>   write a udev rule for the adapter to <file> (install it with sudo cp)

Franka:
  ROS 2 sourced (with the franka_ros2 workspace), rclnodejs loadable with franka_msgs bindings,
  robot state and gripper topics publishing, clock offset between the robot's stamps and this
  machine (limit ±20 ms).
  --params <yaml>       the node's parameter file (topics; default launch/params/fr3.yaml)
  --seconds <s>         how long to listen on each topic (default 2)

examples:
  armguard doctor so101 --supply 7.4 --calibration calibration/so101-demo.yaml
  armguard doctor so101 --port /dev/ttyACM0 --supply 12 --calibration calibration/so101-follower1.yaml --write-udev 99-armguard-so101.rules
  armguard doctor franka --params launch/params/fr3.yaml`;

/** An open Feetech bus as the doctor's read-only bus port: pings and register reads, nothing written. */
export function servoBusPort(bus: FeetechBus): ServoBusPort {
  return {
    ping: async (id) => (await bus.ping(id, { reportTimeout: false })).ok,
    readRegister: async (id, name) => {
      const r = await bus.readRegister(id, name);
      return r.ok ? r.value : undefined;
    },
    close: () => bus.close(),
  };
}

/** The Feetech driver as the doctor's read-only bus port (1 Mbps, 8N1). */
async function openFeetech(path: string): Promise<{ ok: true; bus: ServoBusPort } | { ok: false; detail: string }> {
  const opened = await FeetechBus.open({ path, baudRate: 1_000_000, timeoutS: 0.05, retries: 1 });
  if (!opened.ok) return { ok: false, detail: `${opened.error.kind}: ${faultDetail(opened.error)}` };
  return { ok: true, bus: servoBusPort(opened.value) };
}

async function probeRclnodejs(): Promise<RclnodejsProbe> {
  try {
    const name = 'rclnodejs';
    const imported = (await import(name)) as {
      default?: { require(t: string): unknown };
      require?(t: string): unknown;
    };
    const mod = imported.default ?? (imported as { require(t: string): unknown });
    return {
      ok: true,
      version: 'installed',
      hasType: (t) => {
        try {
          return mod.require(t) !== undefined;
        } catch {
          return false;
        }
      },
    };
  } catch (e) {
    return { ok: false, detail: (e as Error).message };
  }
}

export const doctorCommand: Command = {
  name: 'doctor',
  help: HELP,
  async run(args: string[], io: CliIo): Promise<number> {
    const p = parseArgs(args, { strings: ['port', 'supply', 'calibration', 'write-udev', 'params', 'seconds'] });
    if (!p.ok) {
      io.err(`armguard doctor: ${p.error}`);
      return EXIT.usage;
    }
    const [platform = 'so101', ...extra] = p.positionals;
    if (extra.length > 0 || (platform !== 'so101' && platform !== 'franka')) {
      io.err(`armguard doctor: expected 'so101' or 'franka', got '${[platform, ...extra].join(' ')}'`);
      return EXIT.usage;
    }
    const str = (k: string) => {
      const v = p.options.get(k);
      return typeof v === 'string' ? v : undefined;
    };
    if (platform === 'so101') {
      const supplyRaw = str('supply');
      const supply = supplyRaw === undefined ? undefined : Number(supplyRaw);
      if (supplyRaw !== undefined && !(supply === 7.4 || supply === 12)) {
        io.err(`armguard doctor: --supply: expected 7.4 or 12, got '${supplyRaw}'`);
        return EXIT.usage;
      }
      const cal = str('calibration');
      const udev = str('write-udev');
      const port = str('port');
      const ctx: So101DoctorContext = {
        host: rootedHost('/'),
        ...(port !== undefined ? { port } : {}),
        ...(supply !== undefined ? { supply } : {}),
        ...(cal !== undefined ? { calibrationPath: userOrPackagePath(cal) } : {}),
        ...(udev !== undefined ? { writeUdev: async (text: string) => (await writeFile(udev, text), udev) } : {}),
        readCalibration: async (path) => {
          try {
            const c = parseSo101Calibration(await readFile(path, 'utf8'), path);
            return c.ok ? { ok: true, value: c.value } : { ok: false, problems: c.problems.map((e) => e.message) };
          } catch (e) {
            return { ok: false, problems: [`cannot read: ${(e as Error).message}`] };
          }
        },
        openBus: openFeetech,
        found: {},
      };
      try {
        const results = await runChecks(SO101_CHECKS, ctx);
        io.out(formatResults(results));
        return allPassed(results) ? EXIT.ok : EXIT.failure;
      } finally {
        await ctx.found.bus?.close();
      }
    }
    const paramsPath = userOrPackagePath(str('params') ?? 'launch/params/fr3.yaml');
    let text: string;
    try {
      text = await readFile(paramsPath, 'utf8');
    } catch (e) {
      io.err(`${paramsPath}: cannot read: ${(e as Error).message}`);
      return EXIT.failure;
    }
    const cfg = parseFrankaNodeConfig(text, paramsPath, 'armguard');
    if (!cfg.ok) {
      for (const e of cfg.errors) io.err(e.message);
      return EXIT.failure;
    }
    for (const w of cfg.warnings) io.err(`armguard doctor: ${w}`);
    const seconds = Number(str('seconds') ?? '2');
    if (!(seconds > 0 && seconds <= 60)) {
      io.err(`armguard doctor: --seconds: expected seconds in (0, 60], got '${str('seconds')}'`);
      return EXIT.usage;
    }
    let ros: Awaited<ReturnType<typeof loadRclnodejsRos>> | undefined;
    const results = await runChecks(FRANKA_CHECKS, {
      env: process.env,
      loadRclnodejs: probeRclnodejs,
      ros: async () => (ros ??= await loadRclnodejsRos()),
      topics: frankaTopics(cfg.config),
      wait: (s) => new Promise((r) => setTimeout(r, s * 1000)),
      sampleSeconds: seconds,
      found: {},
    });
    await ros?.shutdown().catch(() => undefined);
    io.out(formatResults(results));
    return allPassed(results) ? EXIT.ok : EXIT.failure;
  },
};
