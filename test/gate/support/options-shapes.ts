import { interiorPointSolver } from '../../../src/gate/index.js';
import type { QpSolverFactory } from '../../../src/gate/cbf-types.js';

/**
 * The interior point, recording every options object a filter passes it: the distinct objects and
 * their key lists (one object with one key list = one hidden class for QpSolver.solve to see).
 */
export function optionsShapeRecorder(): { factory: QpSolverFactory; objects: Set<object>; shapes: Set<string> } {
  const objects = new Set<object>();
  const shapes = new Set<string>();
  const factory: QpSolverFactory = (problem) => {
    const inner = interiorPointSolver(problem);
    return {
      solve: (o) => {
        shapes.add(Object.keys(o).join(','));
        objects.add(o);
        return inner.solve(o);
      },
    };
  };
  return { factory, objects, shapes };
}
