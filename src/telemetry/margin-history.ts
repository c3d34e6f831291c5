/**
 * The recent margins a robot published, kept by armguard and published retained on
 * `armguard/v1/<robot>/margins/history` (MqttLink), so that any dashboard — one started after the
 * session, restarted, or on another machine — shows the last window from the broker at once instead
 * of only what arrived after it connected. Bounded: the last `windowSeconds` of gate time, at most
 * `maxSamples` samples (decimated to `minInterval`). Pure: no clock, no network.
 */
import type { MarginsPayload } from './payloads.js';

export interface MarginHistorySample {
  t: number;
  margins: Record<string, number | null>;
}

/** The retained payload (schema v1). `band` is the latest band per clause. */
export interface MarginHistoryPayload {
  v: 1;
  robot: string;
  /** Seconds of gate time the history covers at most. */
  window: number;
  band: Record<string, number>;
  /** Oldest first, strictly increasing t. */
  samples: MarginHistorySample[];
}

export interface MarginHistoryOptions {
  /** Seconds of gate time kept (default 20: the dashboard's plot window). */
  windowSeconds?: number;
  /** Samples closer together than this (s) are skipped (default 0.1). */
  minInterval?: number;
  /** Hard bound on the samples kept (default 400). */
  maxSamples?: number;
}

/** Limits of a history payload read from the network. */
export const MAX_HISTORY_SAMPLES = 2000;
const MAX_CLAUSES = 64;

export class MarginHistory {
  private samples: MarginHistorySample[] = [];
  private band: Record<string, number> = {};
  readonly windowSeconds: number;
  private readonly minInterval: number;
  private readonly maxSamples: number;

  constructor(options: MarginHistoryOptions = {}) {
    this.windowSeconds = options.windowSeconds ?? 20;
    this.minInterval = options.minInterval ?? 0.1;
    this.maxSamples = Math.min(options.maxSamples ?? 400, MAX_HISTORY_SAMPLES);
  }

  get length(): number {
    return this.samples.length;
  }

  /** Fold in one published margins sample; a gate clock that went back starts the history again. */
  push(t: number, margins: Record<string, number | null>, band: Record<string, number>): void {
    if (!Number.isFinite(t)) return;
    const last = this.samples.at(-1);
    if (last && t < last.t) this.samples = [];
    else if (last && t - last.t < this.minInterval - 1e-9) return;
    const rounded: Record<string, number | null> = {};
    for (const [k, v] of Object.entries(margins))
      rounded[k] = v === null || !Number.isFinite(v) ? null : Math.round(v * 1e4) / 1e4;
    this.samples.push({ t, margins: rounded });
    this.band = { ...band };
    let drop = 0;
    while (
      drop < this.samples.length &&
      (this.samples.length - drop > this.maxSamples || this.samples[drop]!.t < t - this.windowSeconds - 1e-9)
    )
      drop++;
    if (drop > 0) this.samples.splice(0, drop);
  }

  payload(robot: string): MarginHistoryPayload {
    return {
      v: 1,
      robot,
      window: this.windowSeconds,
      band: { ...this.band },
      samples: this.samples.map((s) => ({ t: s.t, margins: { ...s.margins } })),
    };
  }
}

/** Validate a history payload from the broker; never throws. Samples must be finite and strictly increasing in t. */
export function parseMarginHistory(
  text: string,
): { ok: true; value: MarginHistoryPayload } | { ok: false; error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, error: 'expected an object' };
  const o = v as Record<string, unknown>;
  if (o.v !== 1) return { ok: false, error: "field 'v': expected 1" };
  if (typeof o.robot !== 'string') return { ok: false, error: "field 'robot': expected a string" };
  if (typeof o.window !== 'number' || !(o.window > 0))
    return { ok: false, error: "field 'window': expected seconds > 0" };
  const band = numberMap(o.band, false);
  if (!band) return { ok: false, error: "field 'band': expected an object of clause → number" };
  if (!Array.isArray(o.samples) || o.samples.length > MAX_HISTORY_SAMPLES)
    return { ok: false, error: `field 'samples': expected an array of at most ${MAX_HISTORY_SAMPLES} samples` };
  const samples: MarginHistorySample[] = [];
  for (let i = 0; i < o.samples.length; i++) {
    const s = o.samples[i] as unknown;
    const t = typeof s === 'object' && s !== null ? (s as { t?: unknown }).t : undefined;
    if (typeof t !== 'number' || !Number.isFinite(t))
      return { ok: false, error: `samples[${i}].t: expected a finite number` };
    if (i > 0 && !(t > samples[i - 1]!.t))
      return { ok: false, error: `samples[${i}].t: expected times strictly increasing` };
    const margins = numberMap((s as { margins?: unknown }).margins, true);
    if (!margins) return { ok: false, error: `samples[${i}].margins: expected an object of clause → number or null` };
    samples.push({ t, margins: margins as Record<string, number | null> });
  }
  return { ok: true, value: { v: 1, robot: o.robot, window: o.window, band: band as Record<string, number>, samples } };
}

function numberMap(x: unknown, nullable: boolean): Record<string, number | null> | undefined {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return undefined;
  const entries = Object.entries(x as Record<string, unknown>);
  if (entries.length > MAX_CLAUSES) return undefined;
  const out: Record<string, number | null> = {};
  for (const [k, v] of entries) {
    if (k === '__proto__') return undefined;
    if (v === null && nullable) out[k] = null;
    else if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
    else return undefined;
  }
  return out;
}

/** One history sample as the margins payload the dashboard page plots. */
export function historySampleAsMargins(h: MarginHistoryPayload, s: MarginHistorySample): MarginsPayload {
  return { v: 1, robot: h.robot, t: s.t, margins: s.margins, band: h.band };
}
