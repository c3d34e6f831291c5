/**
 * Runs the active clauses' STL monitors on each signal frame and presents their margins to the gate
 * as normalised ClauseMargins (ρ/|τ|, ε = warn/|τ|; τ = 0 clauses are not normalised). No
 * allocation per frame: values are gathered into per-clause preallocated arrays.
 */
import type { ClauseMargins } from '../gate/margins.js';
import { SIGNALS, signalIndex } from '../schema/signals.js';
import type { SignalFrame } from '../schema/signals.js';
import { OnlineMonitor, parseFormula, signalsOf } from '../stl/index.js';
import type { StlSignalDecl } from '../stl/index.js';
import { InputError } from '../util/errors.js';
import { DERIVED_SIGNALS } from '../schema/derived.js';
import { secondsToNs } from '../util/time.js';
import { ClauseCoverageCounter, type ClauseCoverage, type EpisodeCoverage } from '../schema/clause-coverage.js';

/** The part of src/stl's OnlineMonitor the bank uses. */
export interface ClauseMonitor {
  /** One sample at `tNs`, integer ns from the episode's first sample. */
  pushNs(tNs: number, values: ArrayLike<number>): void;
  readonly current: number;
  readonly episodeMin: number;
  readonly low: number;
  readonly high: number;
  readonly decidedSamples: number;
  /** Float64 slots the monitor's buffers hold (constant once they are sized). */
  readonly bufferCapacity: number;
  reset(): void;
}

export interface BankClause {
  readonly name: string;
  readonly monitor: ClauseMonitor;
  /** The monitor's signal order (schema names). */
  readonly signals: readonly string[];
  /** Threshold τ in the clause's unit (normalises ρ); 0 = do not normalise. */
  readonly tau: number;
  /** Soft band in the clause's unit; undefined = no band. */
  readonly warn: number | undefined;
}

/** What the bank needs of a clause instance (src/safety's ClauseInstance satisfies it). */
export interface ClauseSpecLike {
  readonly clause: { readonly id: string };
  readonly formula: string;
  readonly tau: number;
  readonly warn: number | undefined;
}

/** Schema signals and the derived booleans (design §2, e.g. in_transport) clause formulas may use. */
const STL_SIGNALS: readonly StlSignalDecl[] = [
  ...SIGNALS.map((s): StlSignalDecl => ({ name: s.name, type: s.kind === 'boolean' ? 'boolean' : 'real' })),
  ...DERIVED_SIGNALS.map((d): StlSignalDecl => ({ name: d.name, type: 'boolean' })),
];

export class MonitorBank implements ClauseMargins {
  private readonly clauses: readonly BankClause[];
  private readonly indices: Int32Array[];
  private readonly values: Float64Array[];
  private readonly scale: Float64Array;
  private readonly eps: Float64Array;
  private readonly m: Float64Array;
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  private readonly derivedInputs: Int32Array[];
  private readonly derivedScratch: Float64Array[];
  /** Signals any clause reads (indices into SIGNALS): the gate's required signals. */
  readonly requiredSignals: readonly number[];
  /** Per clause, the schema signals (indices into SIGNALS) it reads, derived signals expanded to their inputs. */
  private readonly schemaSignals: readonly (readonly number[])[];
  /** Which clauses could be evaluated at each push, counted over the episode. */
  private readonly counter: ClauseCoverageCounter;

  constructor(clauses: readonly BankClause[]) {
    this.clauses = clauses;
    const required = new Set<number>();
    this.indices = clauses.map((c) =>
      Int32Array.from(c.signals, (name) => {
        const i = signalIndex(name);
        if (i !== undefined) {
          required.add(i);
          return i;
        }
        const k = DERIVED_SIGNALS.findIndex((d) => d.name === name);
        if (k < 0)
          throw new InputError({ field: `clause ${c.name}` }, `signal '${name}' is neither in the schema nor derived`);
        for (const input of DERIVED_SIGNALS[k]!.inputs) required.add(signalIndex(input)!);
        return -(k + 1);
      }),
    );
    this.schemaSignals = this.indices.map((idx) => [
      ...new Set([...idx].flatMap((i) => (i >= 0 ? [i] : DERIVED_SIGNALS[-i - 1]!.inputs.map((n) => signalIndex(n)!)))),
    ]);
    this.counter = new ClauseCoverageCounter(this.schemaSignals);
    this.derivedInputs = DERIVED_SIGNALS.map((d) => Int32Array.from(d.inputs, (n) => signalIndex(n)!));
    this.derivedScratch = DERIVED_SIGNALS.map((d) => new Float64Array(d.inputs.length));
    this.requiredSignals = [...required].sort((a, b) => a - b);
    this.values = clauses.map((c) => new Float64Array(c.signals.length));
    const n = clauses.length;
    this.scale = Float64Array.from(clauses, (c) => (c.tau !== 0 && Number.isFinite(c.tau) ? 1 / Math.abs(c.tau) : 1));
    this.eps = Float64Array.from(clauses, (c, i) => (c.warn === undefined ? 0 : Math.abs(c.warn) * this.scale[i]!));
    this.m = new Float64Array(n).fill(Infinity);
    this.lo = new Float64Array(n).fill(Infinity);
    this.hi = new Float64Array(n).fill(Infinity);
  }

  /**
   * Build monitors from clause instances' STL text; a formula that does not parse is an InputError.
   * `minSampleInterval` (s): the closest two samples will be (e.g. half the nominal period, for
   * jitter); every monitor's buffers are then sized for its windows up front and do not grow, or
   * allocate, during an episode. Closer samples still work (the buffers then grow).
   */
  static fromClauses(specs: readonly ClauseSpecLike[], options: { minSampleInterval?: number } = {}): MonitorBank {
    return new MonitorBank(
      specs.map((s) => {
        const parsed = parseFormula(s.formula, STL_SIGNALS);
        if (!parsed.ok) {
          throw new InputError(
            { field: `clause ${s.clause.id}`, line: parsed.error.line, column: parsed.error.column },
            `formula does not parse: ${parsed.error.message}`,
          );
        }
        const signals = [...signalsOf(parsed.formula)];
        return {
          name: s.clause.id,
          monitor: new OnlineMonitor(parsed.formula, signals, options),
          signals,
          tau: s.tau,
          warn: s.warn,
        };
      }),
    );
  }

  get count(): number {
    return this.clauses.length;
  }
  /** Float64 slots held by all monitors' buffers. */
  get bufferCapacity(): number {
    let total = 0;
    for (const c of this.clauses) total += c.monitor.bufferCapacity;
    return total;
  }
  name(i: number): string {
    return this.clauses[i]?.name ?? `clause#${i}`;
  }
  /** The schema signals (indices into SIGNALS) clause i reads; derived signals expanded to their inputs. */
  clauseSignals(i: number): readonly number[] {
    return this.schemaSignals[i] ?? [];
  }
  /** Where clause i was evaluated this episode (src/schema/clause-coverage.ts). */
  coverage(i: number): ClauseCoverage {
    return this.counter.coverage(i);
  }
  /** Every clause's coverage over the pushes since the last reset (an episode's record of what was evaluated). */
  episodeCoverage(): EpisodeCoverage {
    return this.counter.episode();
  }
  margin(i: number): number {
    return this.m[i] ?? NaN;
  }
  low(i: number): number {
    return this.lo[i] ?? NaN;
  }
  high(i: number): number {
    return this.hi[i] ?? NaN;
  }
  epsilon(i: number): number {
    return this.eps[i] ?? NaN;
  }

  /**
   * Push the frame's values at `t` to every monitor and refresh the margins.
   * margin = the latest decided per-step margin (+∞ before any is decided); low = margin (the
   * episode-level lower bound of an `always` is −∞ on any partial trace and says nothing).
   * high = the episode-level upper bound while no decided sample has violated the clause, so a
   * violation that is already certain before its step is decided holds the gate; once a decided
   * sample has violated, that bound only repeats the past, so high = margin and a cleared
   * condition can be released.
   * A clause with a signal missing or invalid in the frame is not evaluated: its monitor is not fed
   * (a value that was never measured must not become a verdict) and its margins are NaN, which the
   * gate holds on; `coverage` counts it.
   */
  push(t: number, frame: SignalFrame): void {
    this.pushNs(secondsToNs(t), frame);
  }

  /**
   * As `push`, at `tNs`: integer ns on the run's time base — the pipeline passes the sample's own
   * stamp (a ROS header stamp, exact; SignalSource.sampleNs). Monitors get ns from the episode's
   * first push, subtracted in ns, so a sample exactly a window's length earlier is in the window by
   * the semantics, not by float rounding or by when it arrived.
   */
  pushNs(tNs: number, frame: SignalFrame): void {
    if (this.originNs !== this.originNs) this.originNs = tNs;
    const rel = tNs - this.originNs;
    this.counter.step(frame.validity);
    for (let c = 0; c < this.clauses.length; c++) {
      if (!this.counter.evaluatedNow(c)) {
        this.m[c] = NaN;
        this.lo[c] = NaN;
        this.hi[c] = NaN;
        continue;
      }
      const idx = this.indices[c]!;
      const vals = this.values[c]!;
      for (let k = 0; k < idx.length; k++) {
        const i = idx[k]!;
        vals[k] = i >= 0 ? frame.values[i]! : this.derived(-i - 1, frame);
      }
      const mon = this.clauses[c]!.monitor;
      mon.pushNs(rel, vals);
      const s = this.scale[c]!;
      const cur = mon.decidedSamples > 0 ? mon.current * s : Infinity;
      this.m[c] = cur;
      this.lo[c] = cur;
      this.hi[c] = mon.episodeMin >= 0 ? mon.high * s : cur;
    }
  }

  /** A derived boolean (DERIVED_SIGNALS[k]) from the frame's schema values; no allocation. */
  private derived(k: number, frame: SignalFrame): number {
    const inputs = this.derivedInputs[k]!;
    const scratch = this.derivedScratch[k]!;
    for (let j = 0; j < inputs.length; j++) scratch[j] = frame.values[inputs[j]!]!;
    return DERIVED_SIGNALS[k]!.compute(scratch);
  }

  /** Clock time (integer ns) of the episode's first push (NaN before it). */
  private originNs = NaN;

  /** New episode: monitors restart, margins return to +∞. */
  reset(): void {
    this.originNs = NaN;
    this.counter.reset();
    for (const c of this.clauses) c.monitor.reset();
    this.m.fill(Infinity);
    this.lo.fill(Infinity);
    this.hi.fill(Infinity);
  }
}
