/**
 * Role projection (seeds/000 App. C.3): every geom's role comes from its name prefix, so the
 * scene files alone decide which contact pairs count as arm–furniture, target–furniture, etc.
 */
export const enum Role {
  Arm = 0,
  Target = 1,
  Furniture = 2,
  Bystander = 3,
  Other = 4,
}

export const ROLE_PREFIX = {
  arm: 'arm_',
  /** Finger geoms are arm geoms that also drive the gripper_contact flag. */
  finger: 'finger_',
  target: 'tgt_',
  furniture: 'furn_',
  bystander: 'bys_',
} as const;

export function roleOfGeomName(name: string): Role {
  if (name.startsWith(ROLE_PREFIX.arm) || name.startsWith(ROLE_PREFIX.finger)) return Role.Arm;
  if (name.startsWith(ROLE_PREFIX.target)) return Role.Target;
  if (name.startsWith(ROLE_PREFIX.furniture)) return Role.Furniture;
  if (name.startsWith(ROLE_PREFIX.bystander)) return Role.Bystander;
  return Role.Other;
}

export function isFingerGeomName(name: string): boolean {
  return name.startsWith(ROLE_PREFIX.finger);
}
