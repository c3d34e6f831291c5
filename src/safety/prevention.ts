/**
 * How the gate prevents a safe-tier clause (design §6 "Prevent, don't just stop"; issue 15), declared
 * per clause in spec/clauses.yaml under `prevention`:
 *
 * - `cbf`: a constraint of the chunk CBF keeps the arm out of the violating set (seeds/001 App. 0.D):
 *   `obstacle` (tracked bystanders and objects), `plane` (table/furniture), `self_collision`,
 *   `workspace`, `orientation` (the held object's tilt as an end-effector axis limit while grasping).
 * - `warning_band`: the gate predicts the clause's signal from the proposed chunk (`predictor`) and
 *   acts (`action`: slow, bend or hold the arm) when the predicted margin enters the band ε — before
 *   ρ reaches 0 (seeds/002 §IV-A). ε is the clause tier's `warn`, so every tier must declare one.
 *   An optional `cbf` names the CBF constraint that also keeps the arm clear (e.g. the table plane).
 * - `reactive`: the gate can only hold after the violation; `reason` says why.
 */
import type { TierNumbers } from '../schema/platform.js';
import type { YamlNode, YamlReader } from '../schema/yaml-reader.js';

export const CBF_CONSTRAINTS = ['obstacle', 'plane', 'self_collision', 'workspace', 'orientation'] as const;
export type CbfConstraint = (typeof CBF_CONSTRAINTS)[number];

/**
 * What the warning band predicts from a chunk: `approach_speed` — contact force from the speed
 * toward a surface and the depth the chunk drives into it; `commanded_load` — joint torque from the
 * commanded targets (beyond the reachable range a position servo stalls at full torque);
 * `held_height` — the held object's height from the end effector's commanded height while gripping.
 */
export const BAND_PREDICTORS = ['approach_speed', 'commanded_load', 'held_height'] as const;
export type BandPredictor = (typeof BAND_PREDICTORS)[number];

/** `slow`: time-scale the chunk; `bend`: clamp the offending targets into the safe range; `hold`: stop the arm before the band (gripper commands kept). */
export const BAND_ACTIONS = ['slow', 'bend', 'hold'] as const;
export type BandAction = (typeof BAND_ACTIONS)[number];

export const PREVENTION_KINDS = ['cbf', 'warning_band', 'reactive'] as const;
export type PreventionKind = (typeof PREVENTION_KINDS)[number];

export type Prevention =
  | { readonly kind: 'cbf'; readonly constraint: CbfConstraint }
  | {
      readonly kind: 'warning_band';
      readonly predictor: BandPredictor;
      readonly action: BandAction;
      readonly cbf?: CbfConstraint;
    }
  | { readonly kind: 'reactive'; readonly reason: string };

const KEYS: Readonly<Record<PreventionKind, readonly string[]>> = {
  cbf: ['kind', 'constraint'],
  warning_band: ['kind', 'predictor', 'action', 'cbf'],
  reactive: ['kind', 'reason'],
};

/**
 * Read `clauses.<id>.prevention`. For a warning band, every tier must carry ε (`warn`) with
 * 0 < ε < |τ| (a band as wide as the threshold would warn in the safe state itself); τ = 0 clauses
 * need only ε > 0. Errors name the file, line and field.
 */
export function readPrevention(
  r: YamlReader,
  node: YamlNode,
  field: string,
  tiers: ReadonlyMap<string, { numbers: TierNumbers; node: YamlNode }>,
): Prevention | undefined {
  const e = r.map(node, field, ['kind', 'constraint', 'predictor', 'action', 'cbf', 'reason']);
  if (!e) return undefined;
  const kind = r.oneOf(r.required(e, 'kind', node, field), `${field}.kind`, PREVENTION_KINDS);
  if (kind === undefined) return undefined;
  for (const [key, { key: keyNode }] of e) {
    if (!KEYS[kind].includes(key))
      r.fail(
        keyNode,
        `${field}.${key}`,
        `'${key}' does not apply to prevention kind '${kind}' (keys: ${KEYS[kind].join(', ')})`,
      );
  }
  if (kind === 'cbf') {
    const constraint = r.oneOf(r.required(e, 'constraint', node, field), `${field}.constraint`, CBF_CONSTRAINTS);
    return constraint === undefined ? undefined : { kind, constraint };
  }
  if (kind === 'reactive') {
    const reason = r.string(r.required(e, 'reason', node, field), `${field}.reason`);
    return reason === undefined ? undefined : { kind, reason };
  }
  const predictor = r.oneOf(r.required(e, 'predictor', node, field), `${field}.predictor`, BAND_PREDICTORS);
  const action = r.oneOf(r.required(e, 'action', node, field), `${field}.action`, BAND_ACTIONS);
  const cbfNode = e.get('cbf')?.value;
  const cbf = cbfNode === undefined ? undefined : r.oneOf(cbfNode, `${field}.cbf`, CBF_CONSTRAINTS);
  let bandOk = true;
  for (const [name, { numbers, node: tierNode }] of tiers) {
    const at = `${field.replace(/\.prevention$/, '')}.thresholds.${name}.warn`;
    const eps = numbers.warn;
    if (eps === undefined) {
      r.fail(
        tierNode,
        at,
        `missing the warning band ε: prevention kind 'warning_band' acts inside ε, so tier '${name}' must declare warn (in the clause's unit)`,
      );
      bandOk = false;
    } else if (numbers.tau !== 0 && !(eps < Math.abs(numbers.tau))) {
      r.fail(
        tierNode,
        at,
        `warning band ε = ${eps} out of range: expected 0 < ε < |τ| = ${Math.abs(numbers.tau)} for tier '${name}'`,
      );
      bandOk = false;
    }
  }
  if (predictor === undefined || action === undefined || !bandOk || (cbfNode !== undefined && cbf === undefined))
    return undefined;
  return cbf === undefined ? { kind, predictor, action } : { kind, predictor, action, cbf };
}

/** One line of `armguard check`'s explanation, e.g. "warning band (approach_speed → slow; ε 20 N) + CBF plane". */
export function describePrevention(p: Prevention, epsilon?: number, unit?: string): string {
  switch (p.kind) {
    case 'cbf':
      return `CBF constraint: ${p.constraint.replace('_', ' ')}`;
    case 'warning_band':
      return `warning band: predict ${p.predictor.replace('_', ' ')} from the chunk, ${p.action} inside ε${epsilon !== undefined ? ` = ${epsilon}${unit ? ` ${unit}` : ''}` : ''}${p.cbf ? `; CBF constraint: ${p.cbf.replace('_', ' ')}` : ''}`;
    case 'reactive':
      return `reactive only (hold after the violation): ${p.reason}`;
  }
}
