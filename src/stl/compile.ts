import { ArmguardError } from '../util/errors.js';
import { intervalNs, type Expr, type Formula } from './ast.js';
import {
  BoolAtomNode,
  BoolNode,
  ClosureAtomNode,
  FutureWindowNode,
  ThresholdNode,
  LiteralNode,
  NotNode,
  PastWindowNode,
  SinceNode,
  StreamNode,
  UntilNode,
} from './online-nodes.js';
import { exprRobustness } from './robustness.js';

/** Reads the decided values of one stream node at episode level (for ρ at the first sample). */
export class Tap extends StreamNode {
  private seen = 0;
  value = NaN; // initialised as a double so V8 keeps an unboxed double field (no allocation per store)
  constructor(
    readonly mode: 'min' | 'max' | 'first',
    readonly node: StreamNode,
  ) {
    super();
    this.value = this.identity();
    if (!node.immediate) node.ringed = true;
  }
  private identity(): number {
    return this.mode === 'min' ? Infinity : this.mode === 'max' ? -Infinity : NaN;
  }
  update(): void {
    const node = this.node;
    if (this.mode === 'first') {
      if (this.seen === 0 && node.count > 0) {
        this.value = node.immediate ? node.last : node.out.get(0);
        this.seen = 1;
      }
      return;
    }
    if (node.immediate) {
      if (node.count > this.seen) {
        const x = node.last;
        this.value = this.mode === 'min' ? Math.min(this.value, x) : Math.max(this.value, x);
        this.seen = node.count;
      }
      return;
    }
    let v = this.value;
    const min = this.mode === 'min';
    for (let j = this.seen; j < node.count; j++) {
      const x = node.out.get(j);
      v = min ? Math.min(v, x) : Math.max(v, x);
    }
    this.value = v;
    this.seen = node.count;
  }
  get decided(): boolean {
    return this.mode === 'first' ? this.seen > 0 : false;
  }
  override lowestTimeIndex(): number {
    return Infinity;
  }
  protected override resetState(): void {
    this.seen = 0;
    this.value = this.identity();
  }
}

/** The formula's value at the episode's first sample, as a tree over taps. */
export type EpisodeTree =
  | { kind: 'tap'; tap: Tap }
  | { kind: 'not'; arg: EpisodeTree }
  | { kind: 'and' | 'or' | 'implies'; left: EpisodeTree; right: EpisodeTree };

export interface Compiled {
  /** Nodes (and taps) in evaluation order: every node after its children, taps right after their node. */
  order: StreamNode[];
  /** The per-step margin: the formula with its episode-level always/eventually removed. */
  margin: StreamNode;
  episode: EpisodeTree;
  taps: Tap[];
}

/** Compile a formula into a flat, ordered list of stream operators for one OnlineMonitor. */
export function compile(f: Formula, signalIndex: ReadonlyMap<string, number>): Compiled {
  const order: StreamNode[] = [];
  const taps: Tap[] = [];
  const add = <T extends StreamNode>(node: T): T => {
    order.push(node);
    return node;
  };
  const tap = (mode: 'min' | 'max' | 'first', node: StreamNode): EpisodeTree => {
    const t = add(new Tap(mode, node));
    taps.push(t);
    return { kind: 'tap', tap: t };
  };
  const indexOf = (name: string): number => {
    const k = signalIndex.get(name);
    if (k === undefined)
      throw new ArmguardError(`formula reads signal '${name}', which is not in the monitor's signal order`, {
        field: name,
      });
    return k;
  };

  const stream = (g: Formula): StreamNode => {
    switch (g.kind) {
      case 'literal':
        return add(new LiteralNode(g.value ? Infinity : -Infinity));
      case 'atom':
        return add(new BoolAtomNode(indexOf(g.name)));
      case 'compare':
        return add(compileCompare(g, indexOf));
      case 'not':
        return add(new NotNode(stream(g.arg)));
      case 'and':
      case 'or':
      case 'implies': {
        const l = stream(g.left);
        const r = stream(g.right);
        return add(new BoolNode(g.kind, l, r));
      }
      case 'always':
      case 'eventually': {
        if (g.interval === null)
          throw new ArmguardError(
            `unbounded '${g.kind}' is only allowed at episode level (not nested in a temporal operator)`,
          );
        const c = stream(g.arg);
        return add(
          new FutureWindowNode(
            g.kind === 'always' ? 'min' : 'max',
            intervalNs(g.interval).lo,
            intervalNs(g.interval).hi,
            c,
          ),
        );
      }
      case 'historically':
      case 'once': {
        const c = stream(g.arg);
        return add(
          new PastWindowNode(
            g.kind === 'historically' ? 'min' : 'max',
            g.interval ? intervalNs(g.interval).lo : 0,
            g.interval ? intervalNs(g.interval).hi : Infinity,
            c,
          ),
        );
      }
      case 'until': {
        if (g.interval === null) throw new ArmguardError("'until' needs a time bound");
        const l = stream(g.left);
        const r = stream(g.right);
        return add(new UntilNode(intervalNs(g.interval).lo, intervalNs(g.interval).hi, l, r));
      }
      case 'since': {
        const l = stream(g.left);
        const r = stream(g.right);
        return add(
          new SinceNode(
            g.interval ? intervalNs(g.interval).lo : 0,
            g.interval ? intervalNs(g.interval).hi : Infinity,
            l,
            r,
          ),
        );
      }
    }
  };

  // Episode level: boolean structure over unbounded always/eventually and bounded formulas.
  const episode = (g: Formula): { node: StreamNode; tree: EpisodeTree } => {
    if ((g.kind === 'always' || g.kind === 'eventually') && g.interval === null) {
      const node = stream(g.arg);
      return { node, tree: tap(g.kind === 'always' ? 'min' : 'max', node) };
    }
    switch (g.kind) {
      case 'not': {
        const a = episode(g.arg);
        if (a.tree.kind === 'tap' && a.tree.tap.mode === 'first') break;
        return { node: add(new NotNode(a.node)), tree: { kind: 'not', arg: a.tree } };
      }
      case 'and':
      case 'or':
      case 'implies': {
        const l = episode(g.left);
        const r = episode(g.right);
        return { node: add(new BoolNode(g.kind, l.node, r.node)), tree: { kind: g.kind, left: l.tree, right: r.tree } };
      }
      default:
        break;
    }
    const node = stream(g);
    return { node, tree: tap('first', node) };
  };

  const top = episode(f);
  return { order, margin: top.node, episode: top.tree, taps };
}

function compileCompare(g: Extract<Formula, { kind: 'compare' }>, indexOf: (name: string) => number): StreamNode {
  // Fast path for the common `x < c` shapes; same arithmetic as the offline evaluator (c − x or x − c).
  const below = g.op === '<' || g.op === '<=';
  const above = g.op === '>' || g.op === '>=';
  if ((below || above) && g.left.kind === 'var' && g.right.kind === 'num') {
    return new ThresholdNode(indexOf(g.left.name), g.right.value, below);
  }
  if ((below || above) && g.left.kind === 'num' && g.right.kind === 'var') {
    return new ThresholdNode(indexOf(g.right.name), g.left.value, above);
  }
  const left = compileExpr(g.left, indexOf);
  const right = compileExpr(g.right, indexOf);
  const op = g.op;
  return new ClosureAtomNode((v) => exprRobustness(op, left(v), right(v)));
}

function compileExpr(e: Expr, indexOf: (name: string) => number): (v: ArrayLike<number>) => number {
  switch (e.kind) {
    case 'num': {
      const c = e.value;
      return () => c;
    }
    case 'var': {
      const k = indexOf(e.name);
      return (v) => v[k] as number;
    }
    case 'neg': {
      const a = compileExpr(e.arg, indexOf);
      return (v) => -a(v);
    }
    case 'abs': {
      const a = compileExpr(e.arg, indexOf);
      return (v) => Math.abs(a(v));
    }
    case 'scale': {
      const a = compileExpr(e.arg, indexOf);
      const k = e.factor;
      return (v) => k * a(v);
    }
    case 'add':
    case 'sub': {
      const a = compileExpr(e.left, indexOf);
      const b = compileExpr(e.right, indexOf);
      return e.kind === 'add' ? (v) => a(v) + b(v) : (v) => a(v) - b(v);
    }
  }
}
