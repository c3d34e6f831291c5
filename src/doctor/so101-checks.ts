/**
 * SO-101 checks (hardware.md "First pilot: SO-101"): the serial adapter and who may open it, the
 * programs that grab new serial ports, the USB latency timer, the six servos at 1 Mbps (model and
 * firmware), the supply voltage against --supply, and the calibration file against the arm.
 * Read-only on the bus: pings and register reads, never a write.
 */
import { basename } from 'node:path';
import type { So101Calibration } from '../calibration/so101.js';
import { SO101_JOINT_NAMES } from '../kinematics/index.js';
import { fail, pass, type Check } from './checks.js';
import type { HostView } from './host.js';

export const SO101_IDS = [1, 2, 3, 4, 5, 6] as const;
export const STS3215_MODEL = 777;
export const UDEV_RULE_FILE = '/etc/udev/rules.d/99-armguard-so101.rules';

/** What the doctor reads from the bus (the Feetech driver implements it; tests use it over a pty). */
export interface ServoBusPort {
  ping(id: number): Promise<boolean>;
  /** A register by its control-table name; undefined when the servo did not answer. */
  readRegister(
    id: number,
    name: 'Model_Number' | 'Firmware_Major_Version' | 'Firmware_Minor_Version' | 'Present_Voltage' | 'Homing_Offset',
  ): Promise<number | undefined>;
  close(): Promise<void>;
}

export interface So101DoctorContext {
  readonly host: HostView;
  /** --port as given; undefined: the single adapter under /dev/serial/by-id. */
  readonly port?: string;
  /** --supply (V): 7.4 or 12. */
  readonly supply?: number;
  /** --calibration, already resolved. */
  readonly calibrationPath?: string;
  readonly readCalibration: (
    path: string,
  ) => Promise<{ ok: true; value: So101Calibration } | { ok: false; problems: string[] }>;
  /** Where to write the udev rule for the adapter (--write-udev); undefined: print it only. */
  readonly writeUdev?: (text: string) => Promise<string>;
  readonly openBus: (path: string) => Promise<{ ok: true; bus: ServoBusPort } | { ok: false; detail: string }>;
  /** Filled by the checks as they run, for the ones after them. */
  readonly found: {
    device?: string;
    byId?: string;
    bus?: ServoBusPort;
    answering?: number[];
    calibration?: So101Calibration;
  };
}

/** Voltage window per nominal supply (V). 12 V: C018 input 9–12.6 V (hardware-facts §B3); 7.4 V: UNCONFIRMED 6.0–8.4 V. */
export const SUPPLY_WINDOWS: Readonly<Record<string, readonly [number, number]>> = {
  '7.4': [6.0, 8.4],
  '12': [9.0, 12.6],
};

const BY_ID = '/dev/serial/by-id';

export const serialDevice: Check<So101DoctorContext> = {
  id: 'serial-device',
  title: 'serial adapter present',
  async run(ctx) {
    let given = ctx.port;
    if (given === undefined) {
      const ids = await ctx.host.list(BY_ID);
      if (ids.length === 0) {
        return fail(
          `nothing in ${BY_ID}: no USB serial adapter is plugged in (or its driver did not load)`,
          'plug the bus adapter into USB (data cable, not charge-only); `dmesg | tail` should show ttyACM/ttyUSB; then run doctor again',
        );
      }
      if (ids.length > 1) {
        return fail(
          `${ids.length} serial adapters in ${BY_ID}:\n${ids.map((i) => `  ${BY_ID}/${i}`).join('\n')}`,
          "give the arm's adapter with --port /dev/serial/by-id/<name> (unplug it and see which entry disappears)",
        );
      }
      given = `${BY_ID}/${ids[0]}`;
    }
    const device = await ctx.host.resolveLink(given);
    if (device === undefined)
      return fail(`${given} does not exist`, `check the path (ls ${BY_ID}/) or plug the adapter`);
    ctx.found.device = device;
    if (given.startsWith(`${BY_ID}/`)) ctx.found.byId = given;
    return pass(`${given}${device !== given ? ` → ${device}` : ''}`);
  },
};

/** USB ids of the adapter behind a tty, from sysfs (/sys/class/tty/<tty>/device/..). */
async function usbIds(
  host: HostView,
  tty: string,
): Promise<{ vendor: string; product: string; serial?: string } | undefined> {
  const dev = await host.resolveLink(`/sys/class/tty/${tty}/device`);
  if (!dev) return undefined;
  const parent = dev.replace(/\/[^/]+$/, '');
  const read = async (name: string) => (await host.readText(`${parent}/${name}`))?.trim();
  const vendor = await read('idVendor');
  const product = await read('idProduct');
  if (!vendor || !product) return undefined;
  const serial = await read('serial');
  return { vendor, product, ...(serial ? { serial } : {}) };
}

/** A udev rule giving the dialout group the adapter, with a stable /dev/armguard-so101 name. */
export function udevRule(ids: { vendor: string; product: string; serial?: string }): string {
  const serial = ids.serial ? `, ATTRS{serial}=="${ids.serial}"` : '';
  return `# armguard: the SO-101 bus adapter (written by armguard doctor)\nSUBSYSTEM=="tty", ATTRS{idVendor}=="${ids.vendor}", ATTRS{idProduct}=="${ids.product}"${serial}, MODE="0660", GROUP="dialout", SYMLINK+="armguard-so101"\n`;
}

export const permissions: Check<So101DoctorContext> = {
  id: 'permissions',
  title: 'you may open the serial port (dialout, udev)',
  async run(ctx) {
    const device = ctx.found.device;
    if (!device) return fail('no serial device (see the first check)', 'fix the serial adapter check first');
    const groups = await ctx.host.groups();
    const inDialout = groups.includes('dialout');
    if (await ctx.host.canReadWrite(device))
      return pass(`${device} is readable and writable${inDialout ? ' (you are in dialout)' : ''}`);
    const tty = basename(device);
    const ids = await usbIds(ctx.host, tty);
    const lines = [
      `${device}: permission denied for read/write`,
      inDialout
        ? 'you are in the dialout group'
        : `you are not in the dialout group (your groups: ${groups.join(' ') || 'unknown'})`,
    ];
    const fixes: string[] = [];
    if (!inDialout) fixes.push('sudo usermod -aG dialout $USER   # then log out and in again');
    if (ids) {
      const rule = udevRule(ids);
      if (ctx.writeUdev) {
        const file = await ctx.writeUdev(rule);
        fixes.push(
          `udev rule for this adapter written to ${file}; install it: sudo cp ${file} ${UDEV_RULE_FILE} && sudo udevadm control --reload-rules && sudo udevadm trigger`,
        );
      } else {
        fixes.push(
          `a udev rule for this adapter (armguard doctor --write-udev <file> writes it):\n  ${rule.trim().split('\n').at(-1)}\n  install it as ${UDEV_RULE_FILE}, then: sudo udevadm control --reload-rules && sudo udevadm trigger`,
        );
      }
    }
    return fail(lines.join('\n'), fixes.join('\n'));
  },
};

export const portGrabbers: Check<So101DoctorContext> = {
  id: 'port-grabbers',
  title: 'no ModemManager or brltty probing serial ports',
  async run(ctx) {
    const found = new Set<string>();
    for (const pid of await ctx.host.list('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const comm = (await ctx.host.readText(`/proc/${pid}/comm`))?.trim();
      if (comm === 'ModemManager' || comm === 'brltty') found.add(comm);
    }
    if (found.size === 0) return pass('neither ModemManager nor brltty is running');
    const fixes: string[] = [];
    if (found.has('ModemManager'))
      fixes.push(
        'sudo systemctl stop ModemManager && sudo systemctl disable ModemManager   # it sends AT commands to new ttyACM ports',
      );
    if (found.has('brltty'))
      fixes.push('sudo apt remove brltty   # it claims USB serial adapters it mistakes for braille displays');
    return fail(
      `running: ${[...found].join(', ')} — it may open the adapter and write to the servo bus`,
      fixes.join('\n'),
    );
  },
};

export const latencyTimer: Check<So101DoctorContext> = {
  id: 'latency-timer',
  title: 'USB latency timer',
  async run(ctx) {
    const device = ctx.found.device;
    if (!device) return fail('no serial device (see the first check)', 'fix the serial adapter check first');
    const tty = basename(device);
    if (tty.startsWith('ttyACM'))
      return pass(`${tty} is a CDC-ACM adapter (the SO-101 bus boards enumerate so): it has no latency_timer to set`);
    if (!tty.startsWith('ttyUSB')) return pass(`${device} is not a USB-serial adapter: no latency timer`);
    const path = `/sys/bus/usb-serial/devices/${tty}/latency_timer`;
    const text = await ctx.host.readText(path);
    if (text === undefined) return pass(`${tty}: no ${path} (not an FTDI-style adapter)`);
    const ms = Number(text.trim());
    if (ms <= 1) return pass(`${path} = ${ms} ms`);
    return fail(
      `${path} = ${ms} ms: every bus reply waits up to ${ms} ms in the adapter (the 6-servo read then misses the signals' max age)`,
      `echo 1 | sudo tee ${path}\npermanent: add ATTR{latency_timer}="1" to the adapter's udev rule (SUBSYSTEM=="usb-serial", DRIVER=="ftdi_sio", ATTR{latency_timer}="1")`,
    );
  },
};

export const servos: Check<So101DoctorContext> = {
  id: 'servos',
  title: 'servos 1–6 answer at 1 Mbps (model, firmware)',
  async run(ctx) {
    const device = ctx.found.device;
    if (!device) return fail('no serial device (see the first check)', 'fix the serial adapter check first');
    const opened = await ctx.openBus(device);
    if (!opened.ok)
      return fail(
        `cannot open ${device} at 1 Mbps: ${opened.detail}`,
        'close LeRobot or any other program using the port; check the permissions above',
      );
    const bus = opened.bus;
    ctx.found.bus = bus;
    const lines: string[] = [];
    const answering: number[] = [];
    const wrongModel: number[] = [];
    for (const id of SO101_IDS) {
      if (!(await bus.ping(id))) {
        lines.push(`  id ${id} (${SO101_JOINT_NAMES[id - 1]}): no answer`);
        continue;
      }
      answering.push(id);
      const model = await bus.readRegister(id, 'Model_Number');
      const major = await bus.readRegister(id, 'Firmware_Major_Version');
      const minor = await bus.readRegister(id, 'Firmware_Minor_Version');
      if (model !== STS3215_MODEL) wrongModel.push(id);
      lines.push(
        `  id ${id} (${SO101_JOINT_NAMES[id - 1]}): model ${model ?? '?'}${model === STS3215_MODEL ? ' (STS3215)' : ' (expected 777 = STS3215)'}, firmware ${major ?? '?'}.${minor ?? '?'}`,
      );
    }
    ctx.found.answering = answering;
    const missing = SO101_IDS.filter((id) => !answering.includes(id));
    if (missing.length === 0 && wrongModel.length === 0) return pass(lines.join('\n'));
    const fix =
      answering.length === 0
        ? "no servo answers: is the servo supply switched on (the USB cable powers only the adapter)? Is the bus cable in the adapter's servo port? Were the ids and 1 Mbps set with LeRobot (lerobot-setup-motors)?"
        : missing.length > 0
          ? `ids ${missing.join(', ')} do not answer: check the daisy-chain cable at those joints (each servo passes the bus on); a servo with a wrong id or baud rate is set with lerobot-setup-motors, one servo connected at a time`
          : `ids ${wrongModel.join(', ')} are not STS3215 servos (model 777): armguard's torque and position tables are for the STS3215`;
    return fail(lines.join('\n'), fix);
  },
};

export const supplyVoltage: Check<So101DoctorContext> = {
  id: 'supply-voltage',
  title: 'supply voltage matches --supply',
  async run(ctx) {
    const bus = ctx.found.bus;
    const ids = ctx.found.answering ?? [];
    const supply = ctx.supply;
    if (supply === undefined)
      return fail(
        '--supply not given',
        'give --supply 7.4 (C001 servos, 7.4 V follower) or --supply 12 (C018 servos, 12 V follower): it must match the servos you bought',
      );
    const window = SUPPLY_WINDOWS[String(supply)];
    if (!window) return fail(`--supply ${supply}: expected 7.4 or 12`, 'give --supply 7.4 or --supply 12');
    if (!bus || ids.length === 0)
      return fail('no servo answered (see the servo check): voltage not read', 'fix the servo check first');
    const volts: string[] = [];
    const bad: number[] = [];
    for (const id of ids) {
      const raw = await ctx.found.bus!.readRegister(id, 'Present_Voltage');
      const v = raw === undefined ? NaN : raw / 10;
      volts.push(`${id}: ${Number.isFinite(v) ? v.toFixed(1) : '?'} V`);
      if (!(v >= window[0] && v <= window[1])) bad.push(id);
    }
    const detail = `--supply ${supply} V expects ${window[0]}–${window[1]} V at the servos; read ${volts.join(', ')}`;
    if (bad.length === 0) return pass(detail);
    const high = supply === 7.4;
    return fail(
      detail,
      high
        ? 'STOP if the reading is near 12 V: a 12 V supply destroys 7.4 V (C001) servos. Use the 7.4 V (5 A) supply the kit ships with, or give --supply 12 if these are 12 V (C018) servos'
        : 'a 12 V follower needs a 12 V supply (C018 input 9–12.6 V): check the supply and its connector; if these are 7.4 V servos give --supply 7.4',
    );
  },
};

export const calibrationMatches: Check<So101DoctorContext> = {
  id: 'calibration',
  title: 'calibration file present and matching the arm',
  async run(ctx) {
    const path = ctx.calibrationPath;
    if (!path)
      return fail(
        '--calibration not given',
        'give --calibration calibration/so101-<id>.yaml (written by: armguard calibrate so101 --id <id> --port <tty> --lerobot-calibration <json>)',
      );
    const cal = await ctx.readCalibration(path);
    if (!cal.ok)
      return fail(
        `${path}:\n${cal.problems.map((p) => `  ${p}`).join('\n')}`,
        `fix the file, or calibrate again: armguard calibrate so101 --id <id> --port <tty> --lerobot-calibration <json>`,
      );
    const c = cal.value;
    ctx.found.calibration = c;
    const problems: string[] = [];
    if (ctx.supply !== undefined && Math.abs(c.supplyVoltage - ctx.supply) > 0.5)
      problems.push(
        `calibrated at supply_voltage ${c.supplyVoltage} V, --supply ${ctx.supply} V: the torque ceiling (70 % of stall) differs between 7.4 V and 12 V servos`,
      );
    const bus = ctx.found.bus;
    const answering = new Set(ctx.found.answering ?? []);
    const lines = [`${path}: arm ${c.armId}, supply ${c.supplyVoltage} V, table height ${c.tableHeightM} m`];
    SO101_JOINT_NAMES.forEach((name, i) => {
      const m = c.lerobot[name];
      if (m.id !== i + 1) problems.push(`${name}: calibration id ${m.id}, the bus layout has id ${i + 1}`);
    });
    if (bus) {
      for (const [i, name] of SO101_JOINT_NAMES.entries()) {
        const id = i + 1;
        if (!answering.has(id)) continue;
        const offset = await bus.readRegister(id, 'Homing_Offset');
        const want = c.lerobot[name].homing_offset;
        if (offset === undefined) problems.push(`${name} (id ${id}): Homing_Offset not read`);
        else if (offset !== want)
          problems.push(
            `${name} (id ${id}): the servo's Homing_Offset is ${offset}, the calibration's ${want}: the file is from another arm or from before a LeRobot re-calibration`,
          );
      }
    } else {
      problems.push('servos not read (see the servo check): the homing offsets could not be compared');
    }
    if (problems.length === 0) return pass(`${lines[0]}; every servo's Homing_Offset matches`);
    return fail(
      [...lines, ...problems.map((p) => `  ${p}`)].join('\n'),
      'use the calibration of this arm (calibration/so101-<id>.yaml), or calibrate it: armguard calibrate so101 --id <id> --port <tty> --lerobot-calibration ~/.cache/huggingface/lerobot/calibration/robots/so_follower/<id>.json',
    );
  },
};

export const SO101_CHECKS: readonly Check<So101DoctorContext>[] = [
  serialDevice,
  permissions,
  portGrabbers,
  latencyTimer,
  servos,
  supplyVoltage,
  calibrationMatches,
];
