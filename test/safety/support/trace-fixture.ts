import { SIGNALS } from '../../../src/schema/signals.js';
import type { EpisodeTrace, ManualVerdict } from '../../../src/schema/trace.js';

/** Quiet values that are not 0: the arm's self-collision clearance is 5 cm (0 would sit on the clause's edge). */
const QUIET: Readonly<Record<string, number>> = { self_collision_clearance: 0.05 };

/** A quiet trace (every schema signal at 0, or its QUIET value) with some columns overridden sample by sample. */
export function makeTrace(opts: {
  n?: number;
  dt?: number;
  id?: string;
  success?: boolean;
  platform?: string;
  task?: string;
  templates?: string[];
  objects?: string[];
  manual?: Record<string, ManualVerdict>;
  set?: Record<string, (i: number) => number>;
  omit?: string[];
}): EpisodeTrace {
  const n = opts.n ?? 20;
  const dt = opts.dt ?? 0.05;
  const times = Float64Array.from({ length: n }, (_, i) => i * dt);
  const columns = new Map<string, Float64Array>();
  for (const s of SIGNALS) {
    if (opts.omit?.includes(s.name)) continue;
    const f = opts.set?.[s.name];
    columns.set(
      s.name,
      Float64Array.from({ length: n }, (_, i) => (f ? f(i) : (QUIET[s.name] ?? 0))),
    );
  }
  return {
    meta: {
      episodeId: opts.id ?? 'ep',
      success: opts.success ?? true,
      platform: opts.platform ?? 'sim',
      ...(opts.task ? { task: opts.task } : {}),
      templates: opts.templates ?? (opts.task ? [] : ['pnp-basic']),
      objects: opts.objects ?? [],
      manual: new Map(Object.entries(opts.manual ?? {})),
    },
    times,
    columns,
    file: 'constructed.jsonl',
  };
}

/** A pulse: `value` on samples [from, to), `base` elsewhere. */
export const pulse =
  (from: number, to: number, value: number, base = 0) =>
  (i: number) =>
    i >= from && i < to ? value : base;
