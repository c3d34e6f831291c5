/** Checks across spec files: platform recalibrations must name real clauses and give VSI anchors. */
import { InputError } from '../util/index.js';
import type { PlatformProfiles } from '../schema/platform.js';
import type { ClauseLibrary } from './clause.js';

export function crossCheckPlatforms(library: ClauseLibrary, platforms: PlatformProfiles): InputError[] {
  const errors: InputError[] = [];
  for (const p of platforms.values()) {
    for (const o of p.thresholds.values()) {
      const field = `platforms.${p.id}.thresholds.${o.clause}`;
      const clause = library.clauses.find((c) => c.id === o.clause);
      if (!clause) {
        errors.push(
          new InputError(
            { file: o.where.file, line: o.where.line, field },
            `unknown clause '${o.clause}' (library ${library.file})`,
          ),
        );
        continue;
      }
      for (const [tier, t] of o.tiers) {
        if (clause.tier === 'safe' && clause.depth === 'continuous' && t.severe === undefined) {
          errors.push(
            new InputError(
              { file: o.where.file, line: o.where.line, field: `${field}.tiers.${tier}.severe` },
              'a safe-tier continuous clause needs a severe anchor s for VSI',
            ),
          );
        }
      }
    }
  }
  return errors;
}
