/**
 * The fragile pilot's chunk filter as the pilot builds it, and the held-cup feed of a recorded call,
 * for the benches that replay the pilot's recorded filter calls (cbf-replay.ts, tree-ab.ts). The
 * modules come in as a parameter so that tree-ab.ts can build the filter of another checkout.
 */
import type * as SimModule from '../../drivers/sim/index.js';
import type * as EpisodeModule from '../../src/cli/demo/fragile/episode.js';
import type * as FiltersModule from '../../src/cli/demo/fragile/filters.js';
import type * as ClausesModule from '../../src/cli/demo/clauses.js';
import type * as SpecFilesModule from '../../src/cli/spec-files.js';
import type { ModeFilter } from '../../src/cli/demo/fragile/filters.js';

/** The modules of one checkout the pilot's filter is built from. */
export interface PilotModules {
  readonly sim: Pick<typeof SimModule, 'pandaScene' | 'so101Scene'>;
  readonly episode: Pick<typeof EpisodeModule, 'heldTiltLimit'>;
  readonly filters: Pick<typeof FiltersModule, 'ARM_FILTER_PROFILES' | 'modeFilter'>;
  readonly clauses: Pick<typeof ClausesModule, 'demoClauses' | 'demoPlatform'>;
  readonly specFiles: Pick<typeof SpecFilesModule, 'defaultSpecPaths' | 'loadScoringSpec'>;
}

/** A recorded call's held-cup inputs (bench/cbf-replay.ts `Call`). */
export interface HeldTiltInputs {
  heldAxis?: number[] | null;
  episodeStart?: boolean;
  restored?: { lastGrip: number | null; pose: number[] | null; axis: number[] | null; heldAxis: number[] | null };
}

/** The pilot's cbf filter for `arm`, exactly as the pilot builds it (its profile, the demo's held-tilt limit). */
export function pilotCbfFilter(m: PilotModules, arm: 'panda' | 'so101'): ModeFilter {
  const spec = m.specFiles.loadScoringSpec(m.specFiles.defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('; '));
  const scene = (arm === 'panda' ? m.sim.pandaScene : m.sim.so101Scene)();
  const clauses = m.clauses.demoClauses(spec.spec, m.clauses.demoPlatform(arm), undefined, scene.signals);
  if (!clauses.ok) throw new Error(clauses.reason);
  const nArm = scene.armJoints.length;
  const limit = m.episode.heldTiltLimit(clauses.instances);
  return m.filters.modeFilter(
    'cbf',
    m.filters.ARM_FILTER_PROFILES[arm],
    nArm,
    nArm + 1,
    limit === null ? null : { limit, grip: scene.gripper },
  );
}

/**
 * Gives a mode filter each recorded call's held-cup axis through the held-tilt filter's measurement
 * port and resets the held-tilt switch where an episode started, as the episode did; returns the
 * per-call step to run before each filter call.
 */
export function replayHeldTilt(mf: Pick<ModeFilter, 'heldTilt'>): (c: HeldTiltInputs) => void {
  let axis: readonly number[] | null = null;
  if (mf.heldTilt)
    mf.heldTilt.objectAxis = {
      axis: (out: Float64Array): boolean => {
        if (!axis) return false;
        out.set(axis);
        return true;
      },
    };
  return (c) => {
    if (c.episodeStart) mf.heldTilt?.reset();
    axis = c.heldAxis ?? null;
    const r = c.restored;
    if (r && mf.heldTilt)
      mf.heldTilt.restoreGrasp(
        {
          lastGrip: r.lastGrip ?? NaN,
          pose: r.pose ? Float64Array.from(r.pose) : null,
          axis: r.axis ? Float64Array.from(r.axis) : null,
        },
        r.heldAxis,
      );
  };
}
