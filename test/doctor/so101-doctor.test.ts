/**
 * armguard doctor on an SO-101: the checks run against six emulated STS3215 servos served over a
 * real socat pty (the real Feetech driver reads them), with sysfs, /proc and /dev/serial/by-id
 * injected as a directory tree. Every check both passes on a healthy set-up and fails, with its
 * fix, on the fault it is there for.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeetechBus, FeetechEmulator, openPtyPair, serveEmulatorOnPort } from '../../drivers/feetech/index.js';
import { parseSo101Calibration, type So101Calibration } from '../../src/calibration/so101.js';
import { allPassed, formatResults, runChecks, type CheckResult } from '../../src/doctor/checks.js';
import { rootedHost, type HostView } from '../../src/doctor/host.js';
import {
  latencyTimer,
  SO101_CHECKS,
  type ServoBusPort,
  type So101DoctorContext,
} from '../../src/doctor/so101-checks.js';
import { doctorCommand, servoBusPort } from '../../src/cli/commands/doctor.js';
import { captureIo } from '../support/cli-io.js';
import { repoRoot } from '../support/paths.js';

const CAL_PATH = join(repoRoot, 'calibration/so101-demo.yaml');
const BY_ID = 'usb-1a86_USB_Single_Serial_5A46083062-if00';
const JOINTS = ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll', 'gripper'] as const;

let cal: So101Calibration;
let emulator: FeetechEmulator;
let ptyPath: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const c = parseSo101Calibration(readFileSync(CAL_PATH, 'utf8'), CAL_PATH);
  if (!c.ok) throw new Error('demo calibration does not parse');
  cal = c.value;
  emulator = new FeetechEmulator();
  JOINTS.forEach((name, i) =>
    emulator.addServo(i + 1, { Homing_Offset: cal.lerobot[name].homing_offset, Present_Voltage: 120 }),
  );
  const pair = await openPtyPair();
  const served = await serveEmulatorOnPort(emulator, { path: pair.b });
  if (!served.ok) throw new Error(served.detail);
  ptyPath = pair.a;
  cleanup = async () => {
    await served.link.close();
    await pair.kill();
  };
});
afterAll(async () => cleanup());

/** A host tree: the adapter under /dev/serial/by-id (→ the real pty), its USB ids in sysfs, some processes. */
function hostTree(processes: readonly string[] = ['bash', 'node']): string {
  const root = mkdtempSync(join(tmpdir(), 'armguard-doctor-'));
  mkdirSync(join(root, 'dev/serial/by-id'), { recursive: true });
  symlinkSync(ptyPath, join(root, 'dev/serial/by-id', BY_ID));
  const usb = join(root, 'sys/devices/pci0000:00/usb1/1-1');
  mkdirSync(join(usb, '1-1:1.0'), { recursive: true });
  writeFileSync(join(usb, 'idVendor'), '1a86\n');
  writeFileSync(join(usb, 'idProduct'), '55d3\n');
  writeFileSync(join(usb, 'serial'), '5A46083062\n');
  // sysfs names the tty by its device node (the pty's /dev/pts/N; ttyACM0 on an arm)
  const tty = basename(realpathSync(ptyPath));
  mkdirSync(join(root, 'sys/class/tty', tty), { recursive: true });
  symlinkSync('../../../devices/pci0000:00/usb1/1-1/1-1:1.0', join(root, 'sys/class/tty', tty, 'device'));
  processes.forEach((comm, i) => {
    mkdirSync(join(root, 'proc', String(100 + i)), { recursive: true });
    writeFileSync(join(root, 'proc', String(100 + i), 'comm'), `${comm}\n`);
  });
  return root;
}

async function openBus(path: string): Promise<{ ok: true; bus: ServoBusPort } | { ok: false; detail: string }> {
  const b = await FeetechBus.open({ path, timeoutS: 0.05, retries: 1 });
  if (!b.ok) return { ok: false, detail: b.error.kind };
  return { ok: true, bus: servoBusPort(b.value) };
}

async function doctor(over: Partial<So101DoctorContext> = {}): Promise<CheckResult[]> {
  const ctx: So101DoctorContext = {
    host: rootedHost(hostTree(), {}, async () => ['users', 'dialout']),
    supply: 12,
    calibrationPath: CAL_PATH,
    readCalibration: async (p) => {
      const c = parseSo101Calibration(readFileSync(p, 'utf8'), p);
      return c.ok ? { ok: true, value: c.value } : { ok: false, problems: c.problems.map((e) => e.message) };
    },
    openBus,
    found: {},
    ...over,
  };
  try {
    return await runChecks(SO101_CHECKS, ctx);
  } finally {
    await ctx.found.bus?.close();
  }
}

const byId = (rs: CheckResult[], id: string) => rs.find((r) => r.id === id)!;

describe('armguard doctor so101 (emulated servos over a real pty, injected sysfs/proc)', () => {
  it('a healthy set-up passes every check: the adapter found by id, six STS3215 with firmware, 12.0 V on a 12 V follower, matching offsets', async () => {
    const rs = await doctor();
    expect(
      rs.map((r) => [r.id, r.status]),
      formatResults(rs),
    ).toEqual([
      ['serial-device', 'pass'],
      ['permissions', 'pass'],
      ['port-grabbers', 'pass'],
      ['latency-timer', 'pass'],
      ['servos', 'pass'],
      ['supply-voltage', 'pass'],
      ['calibration', 'pass'],
    ]);
    expect(allPassed(rs)).toBe(true);
    expect(byId(rs, 'serial-device').detail).toBe(`/dev/serial/by-id/${BY_ID} → ${realpathSync(ptyPath)}`);
    expect(byId(rs, 'servos').detail).toContain('id 6 (gripper): model 777 (STS3215), firmware 3.10');
    expect(byId(rs, 'supply-voltage').detail).toContain('6: 12.0 V');
  }, 30_000);

  it('a 12 V reading with --supply 7.4 fails with the warning that it destroys C001 servos; the calibration (12 V) disagrees too', async () => {
    const rs = await doctor({ supply: 7.4 });
    expect(byId(rs, 'supply-voltage')).toMatchObject({
      status: 'fail',
      fix: expect.stringMatching(/12 V supply destroys 7\.4 V \(C001\) servos/) as string,
    });
    expect(byId(rs, 'calibration')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/supply_voltage 12 V, --supply 7\.4 V/) as string,
    });
    expect(allPassed(rs)).toBe(false);
  }, 30_000);

  it('a servo that does not answer and a calibration from another arm fail, each with its fix', async () => {
    emulator.servo(3).setRegister('Homing_Offset', 100);
    const removed = emulator.servo(5);
    removed.setRegister('ID', 9); // no longer answers as id 5
    try {
      const rs = await doctor();
      expect(byId(rs, 'servos')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('id 5 (wrist_roll): no answer') as string,
        fix: expect.stringMatching(/ids 5 do not answer: check the daisy-chain/) as string,
      });
      expect(byId(rs, 'calibration').detail).toMatch(
        /elbow_flex \(id 3\): the servo's Homing_Offset is 100, the calibration's -1014/,
      );
    } finally {
      emulator.servo(3).setRegister('Homing_Offset', cal.lerobot.elbow_flex.homing_offset);
      removed.setRegister('ID', 5);
    }
  }, 30_000);

  it('ModemManager and brltty running fail the port-grabbers check with the commands that stop them', async () => {
    const rs = await doctor({
      host: rootedHost(hostTree(['bash', 'ModemManager', 'brltty']), {}, async () => ['dialout']),
    });
    const r = byId(rs, 'port-grabbers');
    expect(r.status).toBe('fail');
    expect(r.detail).toMatch(/ModemManager, brltty/);
    expect(r.fix).toContain('sudo systemctl stop ModemManager');
    expect(r.fix).toContain('sudo apt remove brltty');
  }, 30_000);

  it('a port the user may not open: dialout advice and a udev rule for this adapter, written where asked', async () => {
    const real = rootedHost(hostTree(), {}, async () => ['users']);
    const denied: HostView = { ...real, canReadWrite: async () => false };
    let written = '';
    const rs = await doctor({
      host: denied,
      writeUdev: async (text) => ((written = text), '/tmp/99-armguard-so101.rules'),
    });
    const r = byId(rs, 'permissions');
    expect(r.status, formatResults(rs)).toBe('fail');
    expect(r.fix, formatResults(rs)).toContain('udev');
    expect(r.detail).toContain('you are not in the dialout group (your groups: users)');
    expect(r.fix).toContain('sudo usermod -aG dialout $USER');
    expect(written).toContain(
      'SUBSYSTEM=="tty", ATTRS{idVendor}=="1a86", ATTRS{idProduct}=="55d3", ATTRS{serial}=="5A46083062", MODE="0660", GROUP="dialout", SYMLINK+="armguard-so101"',
    );
    expect(r.fix).toContain('sudo cp /tmp/99-armguard-so101.rules /etc/udev/rules.d/99-armguard-so101.rules');
  }, 30_000);

  it('no adapter, or two: the first check fails and says which to give', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'armguard-doctor-empty-'));
    const none = await doctor({ host: rootedHost(empty, {}, async () => ['dialout']) });
    expect(byId(none, 'serial-device')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/nothing in \/dev\/serial\/by-id/) as string,
    });
    expect(byId(none, 'servos').status).toBe('fail');
    const two = hostTree();
    symlinkSync(ptyPath, join(two, 'dev/serial/by-id/usb-FTDI_FT232R-if00-port0'));
    const rs = await doctor({ host: rootedHost(two, {}, async () => ['dialout']) });
    expect(byId(rs, 'serial-device')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('--port /dev/serial/by-id/<name>') as string,
    });
  }, 30_000);

  it('FTDI latency timer: 16 ms fails with the sysfs write, 1 ms passes (injected sysfs)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'armguard-doctor-ftdi-'));
    mkdirSync(join(root, 'sys/bus/usb-serial/devices/ttyUSB0'), { recursive: true });
    const file = join(root, 'sys/bus/usb-serial/devices/ttyUSB0/latency_timer');
    const ctx = (): So101DoctorContext => ({
      host: rootedHost(root, {}, async () => []),
      readCalibration: async () => ({ ok: false, problems: [] }),
      openBus,
      found: { device: '/dev/ttyUSB0' },
    });
    writeFileSync(file, '16\n');
    const slow = await latencyTimer.run(ctx());
    expect(slow).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('echo 1 | sudo tee /sys/bus/usb-serial/devices/ttyUSB0/latency_timer') as string,
    });
    writeFileSync(file, '1\n');
    expect((await latencyTimer.run(ctx())).status).toBe('pass');
    expect((await latencyTimer.run({ ...ctx(), found: { device: '/dev/ttyACM0' } })).detail).toMatch(/CDC-ACM/);
  });

  it('the CLI prints every result with its fix and exits 1 when a check fails', async () => {
    const { io, out } = captureIo();
    const code = await doctorCommand.run(
      ['so101', '--port', ptyPath, '--calibration', 'calibration/so101-demo.yaml'],
      io,
    );
    expect(code).toBe(1);
    const text = out.join('\n');
    expect(text).toMatch(/PASS {2}servos 1–6 answer at 1 Mbps/);
    expect(text).toMatch(
      /FAIL {2}supply voltage matches --supply\n {6}--supply not given\n {6}fix: give --supply 7\.4/,
    );
    expect(formatResults([])).toContain('all 0 checks passed');
  }, 30_000);
});
