import { readFile } from 'node:fs/promises';
import { EXIT, parseArgs, type Command } from '../command.js';
import { parsePairsCsv } from '../../calibration/mocap-pairs.js';
import { fitRigidTransform } from '../../kinematics/rigid-fit.js';

const DEFAULT_MAX_RESIDUAL = 0.01;
const DEFAULT_MIN_SPREAD = 0.02;

const mm = (m: number) => (m * 1000).toFixed(1);
const fixed = (v: number) => (Math.abs(v) < 5e-7 ? '0.0' : v.toFixed(6).replace(/0+$/, '').replace(/\.$/, '.0'));

export const mocapFitCommand: Command = {
  name: 'mocap-fit',
  help: `usage: armguard mocap-fit --pairs <file.csv> [--max-residual <m>] [--min-spread <m>]

The mocap frame calibration (hardware.md "Mocap frame calibration"): fits the rigid transform from
the tracking (mocap) frame to the robot base frame, robot = R·mocap + t, by least squares (Horn's
quaternion method) over points touched with the flange centre, and prints each point's residual and
the Franka node's tracking_frame_in_base parameter. Refuses (exit 1, no parameter printed) when fewer
than three points are given, when either point set is (nearly) on one line, or when any residual
exceeds --max-residual: a point touched or read wrongly, or a marker that moved.

  --pairs <csv>         header 'label,robot_x,robot_y,robot_z,mocap_x,mocap_y,mocap_z' (label
                        optional), one row per touched point, metres; # comments allowed
  --max-residual <m>    largest residual accepted (default ${DEFAULT_MAX_RESIDUAL} m)
  --min-spread <m>      smallest RMS spread of each point set across its main line (default ${DEFAULT_MIN_SPREAD} m)

example:
  armguard mocap-fit --pairs mocap-pairs.csv`,
  async run(args, io) {
    const parsed = parseArgs(args, { strings: ['pairs', 'max-residual', 'min-spread'] });
    if (!parsed.ok) {
      io.err(`armguard mocap-fit: ${parsed.error}`);
      return EXIT.usage;
    }
    const file = parsed.options.get('pairs');
    if (typeof file !== 'string' || parsed.positionals.length > 0) {
      io.err('armguard mocap-fit: give --pairs <file.csv> (and no other arguments); see armguard mocap-fit --help');
      return EXIT.usage;
    }
    const metres = (name: string, dflt: number): number | undefined => {
      const v = parsed.options.get(name);
      if (v === undefined) return dflt;
      const n = typeof v === 'string' ? Number(v) : NaN;
      if (!(n > 0 && n < 1)) {
        io.err(`armguard mocap-fit: --${name}: expected metres in (0, 1), got '${String(v)}'`);
        return undefined;
      }
      return n;
    };
    const maxResidual = metres('max-residual', DEFAULT_MAX_RESIDUAL);
    const minSpread = metres('min-spread', DEFAULT_MIN_SPREAD);
    if (maxResidual === undefined || minSpread === undefined) return EXIT.usage;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      io.err(`armguard mocap-fit: ${file}: cannot read: ${(e as Error).message}`);
      return EXIT.failure;
    }
    const pairs = parsePairsCsv(text, file);
    if (!pairs.ok) {
      for (const e of pairs.errors) io.err(`armguard mocap-fit: ${e}`);
      return EXIT.failure;
    }
    const list = pairs.pairs;
    const result = fitRigidTransform(
      list.map((p) => p.mocap),
      list.map((p) => p.robot),
      { minSpread },
    );
    if (!result.ok) {
      io.err(`armguard mocap-fit: ${file}: refused: ${result.reason}`);
      return EXIT.failure;
    }
    const f = result.fit;
    io.out(`mocap-fit: ${list.length} point pairs from ${file}; robot = R·mocap + t (least squares, Horn)`);
    const width = Math.max(5, ...list.map((p) => p.label.length));
    io.out(`  ${'point'.padEnd(width)}  line  residual (mm)`);
    list.forEach((p, i) =>
      io.out(
        `  ${p.label.padEnd(width)}  ${String(p.line).padStart(4)}  ${mm(f.residuals[i]!).padStart(8)}${f.residuals[i]! > maxResidual ? '   > limit' : ''}`,
      ),
    );
    io.out(`residuals: RMS ${mm(f.rms)} mm, max ${mm(f.max)} mm (limit ${mm(maxResidual)} mm)`);
    io.out(
      `spread (RMS along the principal axes): robot ${f.spreadB.map(mm).join(' / ')} mm, mocap ${f.spreadA.map(mm).join(' / ')} mm`,
    );
    if (f.max > maxResidual) {
      const bad = list.filter((_, i) => f.residuals[i]! > maxResidual).map((p) => `${p.label} (line ${p.line})`);
      io.err(
        `armguard mocap-fit: ${file}: refused: residual ${mm(f.max)} mm exceeds ${mm(maxResidual)} mm at ${bad.join(', ')} — touch and read those points again (or check that the marker did not move)`,
      );
      return EXIT.failure;
    }
    io.out('# the Franka node parameter (x y z in m, roll pitch yaw in rad; R = Rz(yaw)·Ry(pitch)·Rx(roll)):');
    io.out(`tracking_frame_in_base: [${f.xyzRpy.map(fixed).join(', ')}]`);
    return EXIT.ok;
  },
};
