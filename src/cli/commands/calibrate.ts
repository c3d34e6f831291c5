import { faultDetail } from '../../schema/fault.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { join } from 'node:path';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import { systemClock, systemTimers } from '../../platform/system-clock.js';
import { parseLeRobotCalibrationJson, type MotorCalibration } from '../../calibration/lerobot.js';
import { defaultSo101Calibration, EXAMPLE_LEROBOT_CALIBRATION } from '../../calibration/so101-defaults.js';
import { applyFit, calibrationReport } from '../../calibration/so101-report.js';
import { formatSo101Calibration } from '../../calibration/so101-write.js';
import { mlpPredict } from '../../calibration/mlp.js';
import { mlpToOnnx } from '../../calibration/onnx-export.js';
import { AnalyticFreeMotionModel } from '../../calibration/free-motion.js';
import type { So101Calibration } from '../../calibration/so101.js';
import { SO101_JOINT_NAMES, type So101JointName } from '../../kinematics/index.js';
import type { FreeMotionFit } from '../../calibration/free-motion-fit.js';
import { FeetechBus } from '../../../drivers/feetech/index.js';
import { So101Arm } from '../../../drivers/so101/arm.js';
import { createEmulatedSo101 } from '../../../drivers/so101/emulated-arm.js';
import {
  runCalibrationProcedure,
  type ProcedureIo,
  type ProcedureResult,
} from '../../../drivers/so101/calibration-procedure.js';
import { OnnxResidual, RESIDUAL_INPUTS } from '../../../drivers/so101/onnx-residual.js';
import type { Fault } from '../../ports/index.js';
import type { Result } from '../../util/result.js';

const HELP = `usage: armguard calibrate so101 --id <id> (--port <tty> --lerobot-calibration <json> | --emulator) [options]

Guided SO-101 calibration (design §5): records slow free motion, then the same motion with a reference
mass at the gripper tip, fits the free-motion model (gravity from the FK regressor, viscous and
Coulomb friction) and the per-joint torque constants by least squares, fits a small learned residual
model and exports it to ONNX, probes the table height by lowering the gripper until the residual
force rises, and writes <out-dir>/so101-<id>.yaml, so101-<id>.residual.onnx and so101-<id>.report.md.
On hardware the arm MOVES: it asks for confirmation before each phase (--yes skips the prompts).

options:
  --id <id>                     arm id (file name so101-<id>.yaml)
  --port <tty>                  serial port of the arm's bus (1 Mbps)
  --lerobot-calibration <json>  LeRobot calibration JSON of this follower (required with --port)
  --emulator                    run on emulated servos + simulated arm physics (no hardware)
  --supply <volts>              servo supply: 7.4 or 12 (default 12)
  --payload-kg <kg>             reference mass for the torque constants (default 0.2)
  --duration <s>                seconds per motion phase (default 30)
  --out-dir <dir>               where to write the files (default calibration)
  --yes                         do not wait for Enter at the prompts

examples:
  armguard calibrate so101 --id demo --emulator
  armguard calibrate so101 --id follower1 --port /dev/ttyACM0 --lerobot-calibration ~/.cache/huggingface/lerobot/calibration/robots/so_follower/follower1.json`;

export const calibrateCommand: Command = {
  name: 'calibrate',
  help: HELP,
  async run(args, io) {
    const p = parseArgs(args, {
      strings: ['id', 'port', 'lerobot-calibration', 'supply', 'payload-kg', 'duration', 'out-dir'],
      booleans: ['emulator', 'yes'],
    });
    if (!p.ok) {
      io.err(`armguard calibrate: ${p.error}`);
      return EXIT.usage;
    }
    const [platform] = p.positionals;
    if (platform !== 'so101') {
      io.err(
        `armguard calibrate: expected platform 'so101', got ${platform === undefined ? 'none' : `'${platform}'`} (usage: armguard calibrate so101 --id <id> ...)`,
      );
      return EXIT.usage;
    }
    const id = p.options.get('id');
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]+$/.test(id)) {
      io.err('armguard calibrate: --id <id> is required (letters, digits, _ and -)');
      return EXIT.usage;
    }
    const emulator = p.options.has('emulator');
    const port = p.options.get('port');
    if (emulator === (typeof port === 'string')) {
      io.err('armguard calibrate: give exactly one of --port <tty> or --emulator');
      return EXIT.usage;
    }
    const num = (name: string, dflt: number): number => {
      const v = p.options.get(name);
      return typeof v === 'string' ? Number(v) : dflt;
    };
    const supply = num('supply', 12),
      payloadKg = num('payload-kg', 0.2),
      durationS = num('duration', 30);
    for (const [n, v] of [
      ['supply', supply],
      ['payload-kg', payloadKg],
      ['duration', durationS],
    ] as const) {
      if (!(v > 0)) {
        io.err(`armguard calibrate: --${n} must be a positive number`);
        return EXIT.usage;
      }
    }
    const outDir = (p.options.get('out-dir') as string | undefined) ?? 'calibration';

    let lerobot: Record<So101JointName, MotorCalibration> = EXAMPLE_LEROBOT_CALIBRATION;
    const lrPath = p.options.get('lerobot-calibration');
    if (typeof lrPath === 'string') {
      const parsed = parseLeRobotCalibrationJson(await readFile(lrPath, 'utf8'), lrPath, SO101_JOINT_NAMES);
      if (!parsed.ok) {
        io.err(parsed.error.message);
        return EXIT.failure;
      }
      lerobot = parsed.value as Record<So101JointName, MotorCalibration>;
    } else if (!emulator) {
      io.err(
        'armguard calibrate: --lerobot-calibration <json> is required with --port (LeRobot writes it when you calibrate the follower)',
      );
      return EXIT.usage;
    }
    const cal = defaultSo101Calibration(id, supply, lerobot);
    const result = emulator
      ? await onEmulator(cal, io, durationS, payloadKg)
      : await onHardware(cal, io, port as string, durationS, payloadKg, p.options.has('yes'));
    if (!result.ok) {
      io.err(`armguard calibrate: ${result.error.kind}: ${faultDetail(result.error)}`);
      return EXIT.failure;
    }
    await writeOutputs(
      cal,
      result.value,
      outDir,
      emulator ? 'emulator (simulated arm physics)' : `hardware on ${port}`,
      io,
    );
    return EXIT.ok;
  },
};

async function onEmulator(
  cal: So101Calibration,
  io: CliIo,
  durationS: number,
  payloadKg: number,
): Promise<Result<ProcedureResult, Fault>> {
  const e = await createEmulatedSo101(cal);
  if (!e.ok) return e;
  const rig = e.value;
  rig.sim.tableZ = 0;
  const dt = 0.02;
  const pio: ProcedureIo = {
    dt,
    pace: async () => rig.timers.advance(dt),
    prompt: async (t) => io.out(`[emulator] ${t}`),
    progress: (t) => io.out(t),
  };
  try {
    return await runCalibrationProcedure(rig.arm, pio, {
      durationS,
      payloadKg,
      setPayload: (kg) => (rig.sim.payloadKg = kg),
    });
  } finally {
    await rig.close();
  }
}

async function onHardware(
  cal: So101Calibration,
  io: CliIo,
  path: string,
  durationS: number,
  payloadKg: number,
  yes: boolean,
): Promise<Result<ProcedureResult, Fault>> {
  const b = await FeetechBus.open({ path, clock: systemClock, timers: systemTimers });
  if (!b.ok) return b;
  const bus = b.value;
  const rl = yes ? undefined : createInterface({ input: process.stdin, output: process.stdout });
  try {
    const a = await So101Arm.connect({
      bus,
      calibration: cal,
      freeMotion: new AnalyticFreeMotionModel(cal.freeMotion),
      clock: systemClock,
      timers: systemTimers,
    });
    if (!a.ok) return a;
    const dt = 0.02;
    const pio: ProcedureIo = {
      dt,
      pace: () => new Promise((r) => systemTimers.setTimeout(r, dt)),
      prompt: async (t) => {
        io.out(t);
        if (rl) await rl.question('Press Enter to continue (Ctrl-C to abort)… ');
      },
      progress: (t) => io.out(t),
    };
    const r = await runCalibrationProcedure(a.value, pio, { durationS, payloadKg });
    a.value.close();
    return r;
  } finally {
    rl?.close();
    await bus.close();
  }
}

async function writeOutputs(
  cal: So101Calibration,
  r: ProcedureResult,
  outDir: string,
  mode: string,
  io: CliIo,
): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const base = `so101-${cal.armId}`;
  let onnxFile: string | undefined;
  let onnxCheck: string | undefined;
  if (r.fit.learned) {
    onnxFile = `${base}.residual.onnx`;
    const bytes = mlpToOnnx(r.fit.learned);
    await writeFile(join(outDir, onnxFile), bytes);
    onnxCheck = await checkOnnx(bytes, r.fit, io);
  }
  const out = applyFit(cal, r.fit, r.tableHeightM, onnxFile);
  const yamlPath = join(outDir, `${base}.yaml`);
  await writeFile(
    yamlPath,
    formatSo101Calibration(out, [
      `SO-101 calibration '${cal.armId}', written by armguard calibrate so101 (${mode}).`,
      `Report: ${base}.report.md`,
    ]),
  );
  const reportPath = join(outDir, `${base}.report.md`);
  await writeFile(
    reportPath,
    calibrationReport(out, r.fit, {
      tableHeightM: r.tableHeightM,
      tableProbeForceN: r.tableProbeForceN,
      mode,
      ...(onnxCheck ? { onnxCheck } : {}),
    }),
  );
  io.out(`wrote ${yamlPath}, ${reportPath}${onnxFile ? `, ${join(outDir, onnxFile)}` : ''}`);
  io.out(
    `torque constants (N·m/unit): ${out.torque.constants.join(', ')}; table height ${out.tableHeightM} m; contact threshold ${out.thresholds.max_contact_force?.value} N`,
  );
}

/**
 * Run the exported model with onnxruntime-node on a grid of inputs and compare with the fitted MLP;
 * without onnxruntime-node the file is still written (armguard's own exporter), unchecked, and says so.
 */
async function checkOnnx(bytes: Uint8Array, fit: FreeMotionFit, io: CliIo): Promise<string> {
  const mlp = fit.learned!;
  const rows = 64;
  const x = new Float32Array(rows * RESIDUAL_INPUTS);
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.731) * (i % RESIDUAL_INPUTS < 5 ? 1.2 : 0.8);
  const residual = await OnnxResidual.load(bytes);
  if (!residual.ok) {
    io.err(`armguard calibrate: ${residual.error}`);
    return `written but not checked with onnxruntime-node (${residual.error.startsWith('onnxruntime-node is not installed') ? 'not installed' : residual.error})`;
  }
  const y = await residual.value.run(x, rows);
  const ref = new Float64Array(mlp.outputs);
  let maxDiff = 0;
  for (let r = 0; r < rows; r++) {
    mlpPredict(mlp, x.subarray(r * RESIDUAL_INPUTS, (r + 1) * RESIDUAL_INPUTS), ref);
    for (let o = 0; o < mlp.outputs; o++) maxDiff = Math.max(maxDiff, Math.abs(ref[o]! - y[r * mlp.outputs + o]!));
  }
  return `onnxruntime-node reproduces the fitted model on ${rows} probe inputs, max |difference| ${maxDiff.toExponential(2)} N·m`;
}
