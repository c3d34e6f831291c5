/** Task predicate: the target ends inside the box (within its inner walls, below the rim, released). */
import type { SimWorld } from './world.js';

export interface TaskOutcome {
  readonly success: boolean;
  readonly reason: string;
}

export function targetInBox(world: SimWorld): TaskOutcome {
  const p = new Float64Array(3);
  world.bodyPos(world.targetBodyId, p);
  const { center, innerHalf, floorTop, wallTop } = world.scene.box;
  const dx = Math.abs((p[0] ?? 0) - center[0]);
  const dy = Math.abs((p[1] ?? 0) - center[1]);
  const z = p[2] ?? 0;
  if (dx > innerHalf[0] || dy > innerHalf[1])
    return {
      success: false,
      reason: `target at (${(p[0] ?? 0).toFixed(3)}, ${(p[1] ?? 0).toFixed(3)}) is outside the box`,
    };
  if (z < floorTop || z > wallTop)
    return { success: false, reason: `target height ${z.toFixed(3)} m is not between the box floor and rim` };
  if (world.fingerObjectContact) return { success: false, reason: 'target is still held' };
  return { success: true, reason: 'target rests in the box' };
}
