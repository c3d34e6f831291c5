import { SIGNALS, type SignalName } from '../../../src/schema/signals.js';
/**
 * The shared tabletop: a table whose top is z = 0, a riser the target starts on, the target block,
 * bystanders and an open container. Geom names carry the roles (naming.ts).
 */
import type { GeneratedArm } from './arm-mjcf.js';
import type { Vec3 } from './types.js';

export interface TabletopLayout {
  readonly table: { readonly center: readonly [number, number]; readonly half: readonly [number, number] };
  /** Riser under the target: top at `height`. */
  readonly riser: { readonly center: readonly [number, number]; readonly half: number; readonly height: number };
  readonly target: { readonly half: Vec3; readonly mass: number };
  readonly bystanders: readonly {
    readonly name: string;
    readonly pos: readonly [number, number];
    readonly radius: number /* half width of the square footprint */;
    readonly halfHeight: number;
    readonly mass: number;
  }[];
  readonly box: {
    readonly center: readonly [number, number];
    readonly innerHalf: number;
    readonly wall: number;
    readonly floor: number;
    readonly height: number;
  };
}

const f = (x: number): string => (Math.abs(x) < 1e-12 ? '0' : x.toFixed(5));
const v = (...xs: number[]): string => xs.map(f).join(' ');

export function targetRestOf(l: TabletopLayout): Vec3 {
  return [l.riser.center[0], l.riser.center[1], l.riser.height + l.target.half[2] + 0.0005];
}

export function tabletopXml(l: TabletopLayout): string {
  const [tx, ty] = l.table.center;
  const [thx, thy] = l.table.half;
  const r = l.riser;
  const t = targetRestOf(l);
  const b = l.box;
  const wallCentre = b.innerHalf + b.wall / 2;
  const wallHalfLen = b.innerHalf + b.wall;
  const wallZ = b.floor + b.height / 2;
  const parts: string[] = [];
  // A table is rigid: a stiffer contact (5 ms time constant, MuJoCo default 20 ms) so an impact's
  // force is not absorbed by a soft constraint.
  parts.push(
    `<geom name="furn_table" type="box" pos="${v(tx, ty, -0.02)}" size="${v(thx, thy, 0.02)}" solref="0.005 1" rgba=".6 .5 .4 1"/>`,
  );
  parts.push(
    `<geom name="furn_riser" type="box" pos="${v(r.center[0], r.center[1], r.height / 2)}" size="${v(r.half, r.half, r.height / 2)}" rgba=".5 .5 .6 1"/>`,
  );
  parts.push(`<body name="box" pos="${v(b.center[0], b.center[1], 0)}">
      <geom name="furn_box_floor" type="box" pos="0 0 ${f(b.floor / 2)}" size="${v(wallHalfLen, wallHalfLen, b.floor / 2)}" rgba=".3 .3 .8 1"/>
      <geom name="furn_box_wall_px" type="box" pos="${v(wallCentre, 0, wallZ)}" size="${v(b.wall / 2, wallHalfLen, b.height / 2)}" rgba=".3 .3 .8 1"/>
      <geom name="furn_box_wall_nx" type="box" pos="${v(-wallCentre, 0, wallZ)}" size="${v(b.wall / 2, wallHalfLen, b.height / 2)}" rgba=".3 .3 .8 1"/>
      <geom name="furn_box_wall_py" type="box" pos="${v(0, wallCentre, wallZ)}" size="${v(b.innerHalf, b.wall / 2, b.height / 2)}" rgba=".3 .3 .8 1"/>
      <geom name="furn_box_wall_ny" type="box" pos="${v(0, -wallCentre, wallZ)}" size="${v(b.innerHalf, b.wall / 2, b.height / 2)}" rgba=".3 .3 .8 1"/>
    </body>`);
  parts.push(`<body name="target" pos="${v(...t)}">
      <freejoint name="target_free"/>
      <geom name="tgt_block" type="box" size="${v(...l.target.half)}" mass="${f(l.target.mass)}" friction="1 0.01 0.001" rgba=".9 .2 .2 1"/>
    </body>`);
  for (const by of l.bystanders) {
    parts.push(`<body name="${by.name}" pos="${v(by.pos[0], by.pos[1], by.halfHeight + 0.0005)}">
      <freejoint name="${by.name}_free"/>
      <geom name="bys_${by.name}" type="box" size="${v(by.radius, by.radius, by.halfHeight)}" mass="${f(by.mass)}" rgba=".2 .7 .3 1"/>
    </body>`);
  }
  return parts.join('\n    ');
}

/** Scene fields every tabletop scene derives from its layout the same way. */
export function tabletopSceneFields(l: TabletopLayout) {
  return {
    targetBody: 'target',
    bystanderBodies: l.bystanders.map((b) => b.name),
    bystanderExtents: l.bystanders.map((b) => Math.hypot(b.radius, b.radius, b.halfHeight)),
    box: {
      center: [l.box.center[0], l.box.center[1], 0] as Vec3,
      innerHalf: [l.box.innerHalf, l.box.innerHalf] as [number, number],
      floorTop: l.box.floor,
      wallTop: l.box.floor + l.box.height,
    },
    targetRest: targetRestOf(l),
    targetHalfHeight: l.target.half[2],
  };
}

/** Every schema signal, in schema order: what a scene with arm–arm collision geometry declares. */
export const ALL_SIM_SIGNALS: readonly SignalName[] = SIGNALS.map((x) => x.name);

/** What differs between the tabletop scenes' MJCF documents: the model name, the physics step, the joint defaults, the layout and the arm. */
export interface TabletopSceneXml {
  readonly model: string;
  readonly controlDt: number;
  readonly substeps: number;
  readonly joint: { readonly damping: number; readonly armature: number };
  readonly layout: TabletopLayout;
  readonly arm: GeneratedArm;
}

/** The MJCF document of an arm on the shared tabletop. */
export function tabletopSceneXml(o: TabletopSceneXml): string {
  return `<mujoco model="${o.model}">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="${(o.controlDt / o.substeps).toFixed(8)}" cone="pyramidal" integrator="implicitfast" tolerance="1e-6" iterations="30" ls_iterations="10"/>
  <default>
    <joint damping="${o.joint.damping}" armature="${o.joint.armature}"/>
    <geom friction="1 0.01 0.001" condim="3"/>
  </default>
  <worldbody>
    ${tabletopXml(o.layout)}
${o.arm.bodies}
  </worldbody>
  <contact>
    ${o.arm.excludes}
  </contact>
  <actuator>
    ${o.arm.actuators}
  </actuator>
</mujoco>`;
}
