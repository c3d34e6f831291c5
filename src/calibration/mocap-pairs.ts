/**
 * The paired-points CSV of the mocap frame calibration (hardware.md): one touched marker per row,
 * its position in the robot base frame (the flange centre, from the robot's current pose) and in
 * the tracking frame (the mocap system), in metres.
 *
 *   # comments and blank lines are ignored
 *   label,robot_x,robot_y,robot_z,mocap_x,mocap_y,mocap_z
 *   m1,0.412,-0.203,0.011,1.034,0.221,0.009
 *
 * The header names the columns (any order; `label` optional, nothing else allowed). Every problem
 * names the file, the line and the column. Pure: text in, pairs out.
 */

export const PAIR_COLUMNS = ['robot_x', 'robot_y', 'robot_z', 'mocap_x', 'mocap_y', 'mocap_z'] as const;

export interface PointPair {
  /** The row's label, or `line N`. */
  label: string;
  /** 1-based line in the file. */
  line: number;
  robot: [number, number, number];
  mocap: [number, number, number];
}

/** Rows beyond this are refused (a calibration touches tens of points, not millions). */
export const MAX_PAIRS = 10_000;

export function parsePairsCsv(
  text: string,
  file: string,
): { ok: true; pairs: PointPair[] } | { ok: false; errors: string[] } {
  const lines = text.split(/\r?\n/);
  const errors: string[] = [];
  let header: string[] | undefined;
  let headerLine = 0;
  const pairs: PointPair[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const cells = raw.split(',').map((c) => c.trim());
    if (!header) {
      header = cells;
      headerLine = i + 1;
      const unknown = cells.filter((c) => c !== 'label' && !(PAIR_COLUMNS as readonly string[]).includes(c));
      const missing = PAIR_COLUMNS.filter((c) => !cells.includes(c));
      const twice = cells.filter((c, k) => cells.indexOf(c) !== k);
      if (unknown.length > 0)
        errors.push(
          `${file}:${headerLine}: unknown column(s) ${unknown.map((c) => `'${c}'`).join(', ')} (expected label, ${PAIR_COLUMNS.join(', ')})`,
        );
      if (missing.length > 0)
        errors.push(
          `${file}:${headerLine}: missing column(s) ${missing.join(', ')} (header: label,${PAIR_COLUMNS.join(',')})`,
        );
      if (twice.length > 0)
        errors.push(`${file}:${headerLine}: column(s) ${[...new Set(twice)].join(', ')} appear more than once`);
      if (errors.length > 0) return { ok: false, errors };
      continue;
    }
    if (pairs.length >= MAX_PAIRS) {
      errors.push(`${file}:${i + 1}: more than ${MAX_PAIRS} pairs`);
      break;
    }
    if (cells.length !== header.length) {
      errors.push(`${file}:${i + 1}: ${cells.length} cell(s), the header at line ${headerLine} has ${header.length}`);
      continue;
    }
    const value = (column: (typeof PAIR_COLUMNS)[number]): number => {
      const cell = cells[header!.indexOf(column)]!;
      const v = cell === '' ? NaN : Number(cell);
      if (!Number.isFinite(v))
        errors.push(`${file}:${i + 1}: column ${column}: expected a finite number (m), got '${cell.slice(0, 40)}'`);
      return v;
    };
    const robot: [number, number, number] = [value('robot_x'), value('robot_y'), value('robot_z')];
    const mocap: [number, number, number] = [value('mocap_x'), value('mocap_y'), value('mocap_z')];
    const labelAt = header.indexOf('label');
    const label = labelAt >= 0 && cells[labelAt] !== '' ? cells[labelAt]! : `line ${i + 1}`;
    pairs.push({ label, line: i + 1, robot, mocap });
  }
  if (!header)
    return {
      ok: false,
      errors: [`${file}: no header (expected 'label,${PAIR_COLUMNS.join(',')}' then one row per touched point)`],
    };
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, pairs };
}
