import type { CscMatrix, QpProblem, StageHint } from './types.js';

/**
 * How the variables are grouped into stages so that the KKT normal matrix P + A'WA is
 * block-tridiagonal: every P entry and every constraint row touches at most two consecutive
 * stages.
 * - `chunk`/`stages`: the problem's stage hint, verified against the sparsity pattern;
 * - `levels`: no (valid) hint — breadth-first level sets of the variable graph (rows as cliques)
 *   from a pseudo-peripheral variable. Level sets are block-tridiagonal by construction;
 * - `dense`: the level sets collapse to one block (a dense problem): one dense Cholesky.
 */
export interface QpStructure {
  readonly kind: 'chunk' | 'stages' | 'levels' | 'dense';
  readonly stageCount: number;
  /** variables of stage k are order[stageStart[k] .. stageStart[k+1]) */
  readonly stageStart: Int32Array;
  /** permuted position → variable */
  readonly order: Int32Array;
  /** variable → permuted position */
  readonly positionOf: Int32Array;
  /** permuted position → stage */
  readonly stageOfPosition: Int32Array;
  readonly maxBlockSize: number;
  /** why a hint was not used, if one was given and rejected */
  readonly hintRejected?: string;
}

/**
 * Row-wise view of a CSC matrix: for row i, entries rowStart[i]..rowStart[i+1] as (column, CSC index).
 * Row groups: maximal runs of at least two consecutive rows of at least three entries over the same
 * columns (the chunk CBF's pairs of one step all read u_{k−1}, u_k and ξ_k). Row i's group is
 * groupOfRow[i] (−1: none); group g's rows run from groupFirst[g] to groupEnd[g] (exclusive), each
 * with groupWidth[g] entries. The products over a group gather or scatter its columns once and keep
 * several rows' sums in flight (kernels.ts, normal-equations.ts).
 */
export interface RowView {
  readonly rowStart: Int32Array;
  readonly column: Int32Array;
  readonly cscIndex: Int32Array;
  readonly groupOfRow: Int32Array;
  readonly groupFirst: Int32Array;
  readonly groupEnd: Int32Array;
  readonly groupWidth: Int32Array;
  /** most rows and most entries per row of any group (0 without groups) */
  readonly tallestGroup: number;
  readonly widestGroup: number;
}

export function rowView(A: CscMatrix): RowView {
  const m = A.rows;
  const nnz = A.colPtr[A.cols]!;
  const rowStart = new Int32Array(m + 1);
  for (let t = 0; t < nnz; t++) rowStart[A.rowIndex[t]! + 1]!++;
  for (let i = 0; i < m; i++) rowStart[i + 1]! += rowStart[i]!;
  const fill = rowStart.slice(0, m);
  const column = new Int32Array(nnz);
  const cscIndex = new Int32Array(nnz);
  for (let j = 0; j < A.cols; j++) {
    for (let t = A.colPtr[j]!; t < A.colPtr[j + 1]!; t++) {
      const i = A.rowIndex[t]!;
      const at = fill[i]!++;
      column[at] = j;
      cscIndex[at] = t;
    }
  }
  return { rowStart, column, cscIndex, ...rowGroups(rowStart, column, m) };
}

function rowGroups(
  rowStart: Int32Array,
  column: Int32Array,
  m: number,
): Pick<RowView, 'groupOfRow' | 'groupFirst' | 'groupEnd' | 'groupWidth' | 'tallestGroup' | 'widestGroup'> {
  const groupOfRow = new Int32Array(m).fill(-1);
  const firsts: number[] = [];
  const ends: number[] = [];
  const widths: number[] = [];
  let tallestGroup = 0;
  let widestGroup = 0;
  const sameColumns = (i: number, j: number): boolean => {
    const w = rowStart[i + 1]! - rowStart[i]!;
    if (rowStart[j + 1]! - rowStart[j]! !== w) return false;
    for (let t = 0; t < w; t++) if (column[rowStart[i]! + t] !== column[rowStart[j]! + t]) return false;
    return true;
  };
  for (let i = 0; i < m; ) {
    let end = i + 1;
    while (end < m && sameColumns(i, end)) end++;
    const width = rowStart[i + 1]! - rowStart[i]!;
    if (width >= 3 && end - i >= 2) {
      for (let r = i; r < end; r++) groupOfRow[r] = firsts.length;
      firsts.push(i);
      ends.push(end);
      widths.push(width);
      tallestGroup = Math.max(tallestGroup, end - i);
      widestGroup = Math.max(widestGroup, width);
    }
    i = end;
  }
  return {
    groupOfRow,
    groupFirst: Int32Array.from(firsts),
    groupEnd: Int32Array.from(ends),
    groupWidth: Int32Array.from(widths),
    tallestGroup,
    widestGroup,
  };
}

/** Stage index of every variable from a hint, or a reason why the hint does not fit the problem. */
function stagesFromHint(hint: StageHint, n: number): Int32Array | string {
  if (hint.kind === 'stages') {
    if (hint.stageOfVariable.length !== n)
      return `stageOfVariable has ${hint.stageOfVariable.length} entries, expected ${n}`;
    for (let j = 0; j < n; j++) if (!(hint.stageOfVariable[j]! >= 0)) return `stageOfVariable[${j}] is negative`;
    return hint.stageOfVariable;
  }
  const { horizon: H, joints: nj } = hint;
  if (!Number.isInteger(H) || !Number.isInteger(nj) || H < 1 || nj < 1)
    return `chunk hint H=${H}, n=${nj} is not positive integers`;
  if (H * (nj + 1) !== n) return `chunk layout H·(n+1) = ${H * (nj + 1)} does not match ${n} variables`;
  const stage = new Int32Array(n);
  for (let k = 0; k < H; k++) {
    for (let j = 0; j < nj; j++) stage[k * nj + j] = k;
    stage[H * nj + k] = k;
  }
  return stage;
}

/** Returns a reason if some P entry or A row spans non-adjacent stages. */
function checkBlockTridiagonal(P: CscMatrix, rows: RowView, stage: Int32Array): string | undefined {
  for (let j = 0; j < P.cols; j++) {
    for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
      const i = P.rowIndex[t]!;
      if (Math.abs(stage[i]! - stage[j]!) > 1) return `P(${i},${j}) couples stages ${stage[i]} and ${stage[j]}`;
    }
  }
  for (let i = 0; i + 1 < rows.rowStart.length; i++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let t = rows.rowStart[i]!; t < rows.rowStart[i + 1]!; t++) {
      const s = stage[rows.column[t]!]!;
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    if (hi - lo > 1) return `row ${i} of A couples stages ${lo} and ${hi}`;
  }
  return undefined;
}

/** Breadth-first levels of the variable graph; components share level indices. */
function levelSets(P: CscMatrix, A: CscMatrix, rows: RowView): Int32Array {
  const n = P.cols;
  // symmetric adjacency of P (both triangles)
  const pDeg = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) {
    for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
      const i = P.rowIndex[t]!;
      if (i !== j) {
        pDeg[i + 1]!++;
        pDeg[j + 1]!++;
      }
    }
  }
  for (let j = 0; j < n; j++) pDeg[j + 1]! += pDeg[j]!;
  const pAdj = new Int32Array(pDeg[n]!);
  const fill = pDeg.slice(0, n);
  for (let j = 0; j < n; j++) {
    for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
      const i = P.rowIndex[t]!;
      if (i !== j) {
        pAdj[fill[i]!++] = j;
        pAdj[fill[j]!++] = i;
      }
    }
  }
  const level = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  const bfs = (start: number, mark: Int32Array, offset: number): { last: number; count: number } => {
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    mark[start] = offset;
    while (head < tail) {
      const v = queue[head++]!;
      const lv = mark[v]! + 1;
      for (let t = pDeg[v]!; t < pDeg[v + 1]!; t++) {
        const w = pAdj[t]!;
        if (mark[w]! < 0) {
          mark[w] = lv;
          queue[tail++] = w;
        }
      }
      for (let t = A.colPtr[v]!; t < A.colPtr[v + 1]!; t++) {
        const r = A.rowIndex[t]!;
        for (let e = rows.rowStart[r]!; e < rows.rowStart[r + 1]!; e++) {
          const w = rows.column[e]!;
          if (mark[w]! < 0) {
            mark[w] = lv;
            queue[tail++] = w;
          }
        }
      }
    }
    return { last: queue[tail - 1]!, count: tail };
  };
  const probe = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    if (level[s]! >= 0) continue;
    // pseudo-peripheral start: the last vertex reached from s (one George–Liu sweep)
    probe.fill(-1);
    const { last } = bfs(s, probe, 0);
    bfs(last, level, 0);
  }
  return level;
}

function buildStructure(kind: QpStructure['kind'], stage: Int32Array, hintRejected?: string): QpStructure {
  const n = stage.length;
  let S = 0;
  for (let j = 0; j < n; j++) S = Math.max(S, stage[j]! + 1);
  const count = new Int32Array(S + 1);
  for (let j = 0; j < n; j++) count[stage[j]! + 1]!++;
  const stageStart = new Int32Array(S + 1);
  for (let k = 0; k < S; k++) stageStart[k + 1] = stageStart[k]! + count[k + 1]!;
  // drop empty stages (an explicit hint may skip indices)
  let compact = 0;
  const remap = new Int32Array(S);
  for (let k = 0; k < S; k++) remap[k] = count[k + 1]! > 0 ? compact++ : -1;
  const starts = new Int32Array(compact + 1);
  for (let k = 0; k < S; k++) if (remap[k]! >= 0) starts[remap[k]! + 1] = stageStart[k + 1]!;
  const fill = starts.slice(0, compact);
  const order = new Int32Array(n);
  const positionOf = new Int32Array(n);
  const stageOfPosition = new Int32Array(n);
  let maxBlockSize = 0;
  for (let k = 0; k < compact; k++) maxBlockSize = Math.max(maxBlockSize, starts[k + 1]! - starts[k]!);
  for (let j = 0; j < n; j++) {
    const k = remap[stage[j]!]!;
    const p = fill[k]!++;
    order[p] = j;
    positionOf[j] = p;
    stageOfPosition[p] = k;
  }
  const base = {
    kind: compact <= 1 ? ('dense' as const) : kind,
    stageCount: compact,
    stageStart: starts,
    order,
    positionOf,
    stageOfPosition,
    maxBlockSize,
  };
  return hintRejected === undefined ? base : { ...base, hintRejected };
}

/**
 * Chooses the stage structure of a problem: its hint if the sparsity pattern respects it,
 * otherwise breadth-first level sets (which degenerate to one dense block if the problem is dense).
 */
export function detectStructure(
  problem: Pick<QpProblem, 'P' | 'A' | 'stageHint'>,
  rows: RowView = rowView(problem.A),
): QpStructure {
  const n = problem.P.cols;
  let hintRejected: string | undefined;
  if (problem.stageHint !== undefined) {
    const stage = stagesFromHint(problem.stageHint, n);
    if (typeof stage === 'string') hintRejected = stage;
    else {
      const why = checkBlockTridiagonal(problem.P, rows, stage);
      if (why === undefined) return buildStructure(problem.stageHint.kind, stage);
      hintRejected = why;
    }
  }
  if (n === 0) return buildStructure('dense', new Int32Array(0), hintRejected);
  return buildStructure('levels', levelSets(problem.P, problem.A, rows), hintRejected);
}
