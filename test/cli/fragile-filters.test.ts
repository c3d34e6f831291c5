/**
 * The fragile-obstacle pilot's chunk filters (src/cli/demo/fragile/filters.ts): the chunk-level CBF
 * plans the arm profile's planning margin δ beyond d_safe, so a bent chunk stays δ clear of d_safe
 * and the servo's tracking error at the next chunk's start stays outside d_safe (before, the
 * pilot's filter had no margin and the present position was found 0.005–0.03 mm inside d_safe at
 * the set-down; bench/RESULTS.md). Clearance is read off the arm's capsule model at d_safe, not
 * off the filter's own barrier.
 */
import { describe, expect, it } from 'vitest';
import {
  ARM_FILTER_PROFILES,
  JawRange,
  modeFilter,
  warmUpModeFilter,
  type ArmFilterProfile,
} from '../../src/cli/demo/fragile/filters.js';
import { CapsuleBarrier, obstacleGroups } from '../../src/gate/capsule-barrier.js';
import { CommitRecheck } from '../../src/gate/chunk-recheck.js';
import { CapsuleModel, ForwardKinematics, armModel, endEffectorOf } from '../../src/kinematics/index.js';
import { so101Scene } from '../../drivers/sim/index.js';

const H = 50;
const DT = 1 / 30;
const ARM = 5;
const COLUMNS = 6;
const JAW = 0.2;

/** A chunk sweeping the pan joint from q0 by `sweep` rad (jaw fixed), and the TCP halfway along it. */
function sweepChunk(profile: ArmFilterProfile, sweep: number) {
  const q0 = [0, -0.7, 0.5, 1.2, Math.PI / 2, JAW];
  const nominal = new Float64Array(H * COLUMNS);
  for (let k = 0; k < H; k++) {
    for (let j = 0; j < COLUMNS; j++) nominal[k * COLUMNS + j] = q0[j]!;
    nominal[k * COLUMNS] = (sweep * (k + 1)) / H;
  }
  const mid = [...q0];
  mid[0] = sweep / 2;
  return { q0, nominal, tcp: tcpAt(profile, mid) };
}

/** The end effector's TCP (base frame, m) at joint positions q, by the description's kinematics. */
function tcpAt(profile: ArmFilterProfile, q: readonly number[]): [number, number, number] {
  const fk = new ForwardKinematics(profile.description.chain);
  fk.compute(q);
  const o = fk.offset(endEffectorOf(profile.description, profile.endEffector).tcp.frame);
  return [fk.frames[o + 9]!, fk.frames[o + 10]!, fk.frames[o + 11]!];
}

/**
 * The arm's clearance beyond d_safe (m) from a 1 cm sphere at `centre`, with the arm joints at `arm`
 * and the jaw at `jaw`: the capsule model at d_safe, no pins (the description's six joints).
 */
function sphereMeter(
  profile: ArmFilterProfile,
  arm: readonly number[],
): (centre: readonly number[], jaw: number) => number {
  const model = new CapsuleModel(armModel(profile.description, profile.endEffector));
  return (centre, jaw) => {
    const groups = obstacleGroups({
      planes: new Float64Array(0),
      spheres: Float64Array.from([...centre, 0.01]),
      box: null,
    });
    const meter = new CapsuleBarrier(model, groups, profile.dSafe);
    return meter.h(Float64Array.from([...arm, jaw]), new Float64Array(meter.pairs));
  };
}

/** The first point of a 1 cm grid within ±8 cm of `around` (x, then y, then z outermost first) that `wanted` accepts; null when none does. */
function gridPoint(around: readonly number[], wanted: (c: number[]) => boolean): number[] | null {
  for (let i = -8; i <= 8; i++)
    for (let j = -8; j <= 8; j++)
      for (let k = -8; k <= 8; k++) {
        const c = [around[0]! + 0.01 * i, around[1]! + 0.01 * j, around[2]! + 0.01 * k];
        if (wanted(c)) return c;
      }
  return null;
}

/** Least clearance beyond d_safe (m) of the chunk's rows to the spheres. */
function leastClearance(profile: ArmFilterProfile, rows: Float64Array, spheres: Float64Array): number {
  const groups = obstacleGroups({ planes: new Float64Array(0), spheres: Float64Array.from(spheres), box: null });
  const meter = new CapsuleBarrier(
    new CapsuleModel(armModel(profile.description, profile.endEffector)),
    groups,
    profile.dSafe,
  );
  const h = new Float64Array(meter.pairs);
  const q = new Float64Array(meter.joints);
  let least = Infinity;
  for (let k = 0; k < H; k++) {
    for (let j = 0; j < ARM; j++) q[j] = rows[k * COLUMNS + j]!;
    q[5] = JAW;
    least = Math.min(least, meter.h(q, h));
  }
  return least;
}

function filterSweep(profile: ArmFilterProfile) {
  const mf = modeFilter('cbf', profile, ARM, COLUMNS, null);
  const { q0, nominal, tcp } = sweepChunk(profile, 0.6);
  // two 2 cm spheres stacked at the TCP's midway point (the arm sweeps through them)
  const spheres = Float64Array.from([tcp[0], tcp[1], tcp[2], 0.02, tcp[0], tcp[1], tcp[2] - 0.03, 0.02]);
  mf.groups.forEach((g, i) => g.spheres.set(spheres.subarray(4 * i, 4 * i + 4)));
  const o = mf.filter.filter(nominal, H, q0, DT);
  return { o, rows: o.status === 'filtered' ? Float64Array.from(o.targets) : nominal, nominal, spheres };
}

describe('fragile-obstacle chunk filters', () => {
  it('SO-101 cbf: the profile plans δ > 0 beyond d_safe, and the bent chunk keeps it', () => {
    const profile = ARM_FILTER_PROFILES.so101;
    expect(profile.planningMargin).toBeGreaterThan(0);
    const { o, rows, nominal, spheres } = filterSweep(profile);
    expect(o.status, o.detail).toBe('filtered');
    // the nominal runs into the spheres
    expect(leastClearance(profile, nominal, spheres)).toBeLessThan(-0.01);
    // every row of the bent chunk stays δ beyond d_safe (to the barrier-condition tolerance, 0.1 mm)
    expect(leastClearance(profile, rows, spheres)).toBeGreaterThanOrEqual(profile.planningMargin - 1e-4);
  });

  it('the planning margin is what keeps the chunk beyond d_safe + δ: 5 mm planned, 5 mm kept; none planned, less kept', () => {
    const wide = { ...ARM_FILTER_PROFILES.so101, planningMargin: 0.005 };
    const planned = filterSweep(wide);
    expect(planned.o.status, planned.o.detail).toBe('filtered');
    expect(leastClearance(wide, planned.rows, planned.spheres)).toBeGreaterThanOrEqual(0.005 - 1e-4);
    const none = { ...ARM_FILTER_PROFILES.so101, planningMargin: 0 };
    const unplanned = filterSweep(none);
    expect(unplanned.o.status, unplanned.o.detail).toBe('filtered');
    const least = leastClearance(none, unplanned.rows, unplanned.spheres);
    expect(least).toBeGreaterThanOrEqual(-1e-4); // d_safe itself always holds
    expect(least).toBeLessThan(0.005 - 1e-4);
  });
});

describe('fragile-obstacle chunk filters: the held cup’s tilt', () => {
  const g = so101Scene().gripper;
  const LIMIT = (13.5 * Math.PI) / 180;

  /** Tilt (rad) of the tool's vertical-at-q0 direction at each row's pose. */
  function toolTilts(profile: ArmFilterProfile, q0: readonly number[], rows: Float64Array): number[] {
    const fk = new ForwardKinematics(profile.description.chain);
    const frame = endEffectorOf(profile.description, profile.endEffector).tcp.frame;
    const rot = (q: readonly number[]): number[] => {
      fk.compute(q);
      const o = fk.offset(frame);
      return Array.from(fk.frames.subarray(o, o + 9));
    };
    const r0 = rot(q0);
    // the tool-frame direction that is world-vertical at q0: R0ᵀ·z
    const v = [r0[6]!, r0[7]!, r0[8]!];
    const out: number[] = [];
    for (let k = 0; k < H; k++) {
      const r = rot(Array.from(rows.subarray(k * COLUMNS, (k + 1) * COLUMNS)));
      const z = r[6]! * v[0]! + r[7]! * v[1]! + r[8]! * v[2]!;
      out.push(Math.acos(Math.min(1, z)));
    }
    return out;
  }

  /** The wrist flexing 0.6 rad (≈ 34°) over the chunk with the gripper at `grip` throughout. */
  function flexChunk(grip: number) {
    const q0 = [0.2, -0.7, 0.5, 1.2, Math.PI / 2, grip];
    const nominal = new Float64Array(H * COLUMNS);
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < COLUMNS; j++) nominal[k * COLUMNS + j] = q0[j]!;
      nominal[k * COLUMNS + 3] = q0[3]! - (0.6 * (k + 1)) / H;
    }
    return { q0, nominal };
  }

  it('while the gripper is commanded closed the cbf keeps the tool within the limit of its grasp pose; open, the chunk passes', () => {
    const profile = ARM_FILTER_PROFILES.so101;
    const mf = modeFilter('cbf', profile, ARM, COLUMNS, { limit: LIMIT, grip: g });
    expect(mf.heldTilt).not.toBeNull();
    mf.groups.forEach((grp) => grp.spheres.set([5, 5, 5, 0.01])); // the bottle far away
    const held = flexChunk(g.closed);
    expect(Math.max(...toolTilts(profile, held.q0, held.nominal))).toBeGreaterThan(0.5);
    const o = mf.filter.filter(held.nominal, H, held.q0, DT);
    expect(o.status, o.detail).toBe('filtered');
    const rows = Float64Array.from(o.targets);
    // the polygon's faces allow asin(sin θ·cos(π/4)) along a face normal, never more than θ
    expect(Math.max(...toolTilts(profile, held.q0, rows))).toBeLessThanOrEqual(LIMIT / profile.pivotGain + 1e-3);
    // the gripper column is played exactly as sent
    for (let k = 0; k < H; k++) expect(rows[k * COLUMNS + 5]).toBe(g.closed);

    mf.heldTilt!.reset();
    const open = flexChunk(g.open);
    expect(mf.filter.filter(open.nominal, H, open.q0, DT).status).toBe('unchanged');
  });
});

describe('fragile-obstacle chunk filters: the commit re-check of the pilot', () => {
  const g = so101Scene().gripper;
  const LIMIT = (13.5 * Math.PI) / 180;

  it('cbf and hold re-check on the filter’s own barrier (the stepwise baseline as published does not)', () => {
    const profile = ARM_FILTER_PROFILES.so101;
    const cbf = modeFilter('cbf', profile, ARM, COLUMNS, { limit: LIMIT, grip: g });
    expect(cbf.recheck).toMatchObject({ planningMargin: profile.planningMargin, qmin: cbf.qmin, qmax: cbf.qmax });
    // the tilt faces over the arm and the jaw (6 joints), the distance barrier the jaw-pinned 5
    expect(cbf.recheck!.heldTilt!.barrier.joints).toBe(COLUMNS);
    expect(cbf.recheck!.barrier.joints).toBe(ARM);
    expect(cbf.recheck!.heldTilt!.filter).toBe(cbf.heldTilt);
    expect(modeFilter('hold', profile, ARM, COLUMNS, { limit: LIMIT, grip: g }).recheck).toMatchObject({
      planningMargin: 0,
      heldTilt: null,
    });
    expect(modeFilter('stepwise', profile, ARM, COLUMNS, { limit: LIMIT, grip: g }).recheck).toBeNull();
  });

  it('SO-101: the re-check bounds the cup measured at the first held chunk, over the arm and the jaw — a wrist flex the tool-pose reference passes tips the leaning cup past τ − ε', () => {
    const profile = ARM_FILTER_PROFILES.so101;
    const mf = modeFilter('cbf', profile, ARM, COLUMNS, { limit: LIMIT, grip: g });
    mf.groups.forEach((grp) => grp.spheres.set([5, 5, 5, 0.01])); // the bottle far away
    const pan = 0.2;
    const q0 = [pan, -0.7, 0.5, 1.2, Math.PI / 2, g.closed];
    // the cup leans a = 0.2 rad toward the wrist-flex axis (horizontal, across the pan's radial
    // plane): flexing the wrist by d turns it about that axis, so it tilts acos(cos a · cos d)
    const a = 0.2;
    const lean = [-Math.sin(pan) * Math.sin(a), Math.cos(pan) * Math.sin(a), Math.cos(a)];
    const port = { axis: (out: Float64Array) => (out.set(lean), true) };
    const rows = (flex: number): Float64Array => {
      const u = new Float64Array(H * COLUMNS);
      for (let k = 0; k < H; k++) {
        u.set(q0, k * COLUMNS);
        u[k * COLUMNS + 3] = q0[3]! - flex * Math.min(1, (k + 1) / 10);
      }
      return u;
    };
    const measured = new CommitRecheck(
      { ...mf.recheck!, heldTilt: { ...mf.recheck!.heldTilt!, filter: null, objectAxis: port } },
      COLUMNS,
    );
    const toolPose = new CommitRecheck(
      { ...mf.recheck!, heldTilt: { ...mf.recheck!.heldTilt!, filter: null } },
      COLUMNS,
    );
    const still = rows(0);
    for (const c of [measured, toolPose]) {
      // the grasp (closed from the first row): the tool pose there; nothing measured yet
      const h = c.handover()!;
      expect(c.check(still, still, still, H, DT, q0, q0, h.heldAxis)).toBeNull();
      c.committed();
    }
    // d = 0.15: the cup at acos(cos 0.2 · cos 0.15) = 0.249 rad > 0.2356; the tool alone 0.15 along
    // a face normal, under the polygon's asin(sin 0.2356 · cos 45°) = 0.166
    const flexed = rows(0.15);
    const h = measured.handover()!;
    expect(h.heldAxis).not.toBeNull();
    expect(measured.check(still, still, flexed, H, DT, q0, q0, h.heldAxis)).toMatchObject({
      check: 'held-tilt',
      detail: expect.stringMatching(/as measured at the first held chunk/),
    });
    expect(toolPose.check(still, still, flexed, H, DT, q0, q0, null)).toBeNull();
    // held still, the cup stays at its 0.2 rad (the polygon turned a vertex toward the lean: 0.2356 there)
    expect(measured.check(still, still, still, H, DT, q0, q0, h.heldAxis)).toBeNull();
  });
});

describe('fragile-obstacle chunk filters: the SO-101 jaw', () => {
  const g = so101Scene().gripper;

  it('a chunk that opens the jaw into d_safe of the bottle is refused, though the closed jaw is clear', () => {
    const profile = ARM_FILTER_PROFILES.so101;
    const q0 = [0.2, -0.7, 0.5, 1.2, Math.PI / 2, g.closed];
    const meterAt = sphereMeter(profile, q0.slice(0, ARM));
    // a 1 cm sphere that the open jaw reaches into d_safe of and the closed jaw does not
    const centre = gridPoint(tcpAt(profile, q0), (c) => meterAt(c, g.closed) > 0.005 && meterAt(c, g.open) < -0.002);
    expect(centre, 'no point the opening jaw alone brings within d_safe').not.toBeNull();
    // the arm stands still; the gripper column opens over the chunk
    const nominal = new Float64Array(H * COLUMNS);
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < ARM; j++) nominal[k * COLUMNS + j] = q0[j]!;
      nominal[k * COLUMNS + 5] = g.closed + ((g.open - g.closed) * (k + 1)) / H;
    }
    for (const mode of ['hold', 'cbf'] as const) {
      const mf = modeFilter(mode, profile, ARM, COLUMNS, null);
      mf.groups[0]!.spheres.set([...centre!, 0.01]);
      mf.groups[1]!.spheres.set([5, 5, 5, 0.01]);
      const out = mf.filter.filter(nominal, H, q0, DT);
      // the gripper column is the policy's: the arm can only be held or moved away, never passed as is
      expect(out.status, `${mode}: ${out.detail}`).not.toBe('unchanged');
      if (out.status === 'filtered')
        for (let k = 0; k < H; k++) expect(out.targets[k * COLUMNS + 5]).toBe(nominal[k * COLUMNS + 5]);
    }
  });

  it('the commit re-check pins the jaw from the chunk it checks: a chunk that grasps part-way with the jaw open at q0 is checked with the jaw open on every row', () => {
    const profile = ARM_FILTER_PROFILES.so101;
    const LIMIT = (13.5 * Math.PI) / 180;
    const arm = [0.2, -0.7, 0.5, 1.2, Math.PI / 2];
    const q0 = [...arm, g.open];
    // the jaw closes from open over rows 0…G−1 to 40 % of the way (still open: a command counts as
    // closed from halfway), then is commanded closed from row G (the grasp); the arm stands still
    const G = 10;
    const mid = g.open + 0.4 * (g.closed - g.open);
    const nominal = new Float64Array(H * COLUMNS);
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < ARM; j++) nominal[k * COLUMNS + j] = arm[j]!;
      nominal[k * COLUMNS + 5] = k < G ? g.open + ((mid - g.open) * (k + 1)) / G : g.closed;
    }
    const meterAt = sphereMeter(profile, arm);
    // a 1 cm sphere the jaw open at q0 reaches into d_safe of, and the jaw from 40 % closed to closed does not
    const centre = gridPoint(
      tcpAt(profile, q0),
      (c) => meterAt(c, g.closed) > 0.005 && meterAt(c, mid) > 0.005 && meterAt(c, g.open) < -0.002,
    );
    expect(centre, 'no point the open jaw alone brings within d_safe').not.toBeNull();

    const mf = modeFilter('cbf', profile, ARM, COLUMNS, { limit: LIMIT, grip: g });
    const recheck = new CommitRecheck(mf.recheck!, COLUMNS);
    // as the synchronous chunk path: handover, filter (the bottle far), re-check
    mf.groups.forEach((grp) => grp.spheres.set([5, 5, 5, 0.01]));
    const heldAxis = recheck.beforeFilter();
    const out = mf.filter.filter(nominal, H, q0, DT);
    expect(out.status, out.detail).toBe('unchanged');
    // the filter split it at the grasp: its second part left the pins at the range of rows G… and
    // row G−1 (from 40 % closed to closed). The bottle as tracked at commit (the off-thread path
    // re-checks with the obstacles present then): the sphere by the open jaw.
    mf.groups[0]!.spheres.set([...centre!, 0.01]);
    const failed = recheck.check(nominal, nominal, nominal, H, DT, q0, q0, heldAxis);
    expect(failed).toMatchObject({ check: 'barrier' });
    // the pins the re-check used: the jaw's range over q0 and every row's gripper command
    let lo = q0[5]!;
    let hi = q0[5]!;
    for (let k = 0; k < H; k++) {
      lo = Math.min(lo, nominal[k * COLUMNS + 5]!);
      hi = Math.max(hi, nominal[k * COLUMNS + 5]!);
    }
    const jaw = mf.recheck!.chunkPin as JawRange;
    expect(jaw).toBeInstanceOf(JawRange);
    expect([jaw.pins[0].value, jaw.pins[1].value]).toEqual([lo, hi]);
    // the bottle back far away: the chunk passes (the pins alone do not fail it)
    mf.groups[0]!.spheres.set([5, 5, 5, 0.01]);
    expect(recheck.check(nominal, nominal, nominal, H, DT, q0, q0, heldAxis)).toBeNull();
  });
});

describe('fragile-obstacle chunk filters: the warm-up before the first chunk', () => {
  const tilt = { limit: 0.3, grip: { open: 1.7, closed: 0 } };
  it.each([
    ['so101', 5, 6],
    ['panda', 7, 8],
  ] as const)(
    '%s: the sweep past the sphere reaches the solver in every mode that filters, on a throwaway filter',
    (arm, nArm, columns) => {
      const profile = ARM_FILTER_PROFILES[arm];
      // bent (filtered) by the chunk-level CBF and the action-wise baseline; the hold-only check
      // never modifies a chunk: it refuses the one that enters d_safe
      const cbf = warmUpModeFilter('cbf', profile, nArm, columns, tilt, tilt.grip, DT);
      expect(cbf).toHaveLength(8);
      expect(cbf.filter((s) => s === 'filtered').length).toBeGreaterThanOrEqual(6);
      expect(warmUpModeFilter('stepwise', profile, nArm, columns, tilt, tilt.grip, DT)).toContain('filtered');
      expect(warmUpModeFilter('hold', profile, nArm, columns, null, tilt.grip, DT)).not.toContain('unchanged');
      // the pilot's own filter, built after it, answers as one built without it
      const chunk = new Float64Array(H * columns);
      const q0 = new Float64Array(columns);
      for (let k = 0; k < H; k++) for (let j = 0; j < nArm; j++) chunk[k * columns + j] = (0.4 * (k + 1)) / H;
      const answer = () => {
        const f = modeFilter('cbf', profile, nArm, columns, tilt);
        f.groups[0]!.spheres.set([0.25, 0.05, 0.2, 0.03]);
        const o = f.filter.filter(chunk, H, q0, DT);
        return { status: o.status, targets: Array.from(o.targets) };
      };
      const before = answer();
      warmUpModeFilter('cbf', profile, nArm, columns, tilt, tilt.grip, DT);
      expect(answer()).toEqual(before);
    },
  );
});
