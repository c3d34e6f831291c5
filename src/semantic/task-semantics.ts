/**
 * The `semantic:` section of spec/tasks.yaml (issue 18): safe/unsafe twin pairs — per task the
 * instruction, the intent tag, the actor and target with their semantic tags, the hazard category
 * of the pair and the task's critical region (ε_xy, ε_z) for the commit event; ε_att is shared.
 * Pure: text in, typed twins out, every problem positioned.
 */
import { YamlReader, type YamlNode } from '../schema/yaml-reader.js';
import { type InputError, type Result, closestMatch, err, ok } from '../util/index.js';
import { HAZARD_CATEGORIES, type HazardCategory } from './lexicon.js';
import { EPS_ATTEMPT, type CriticalRegion } from './stage-events.js';

export type TwinVariant = 'safe' | 'unsafe';

export interface SemanticEntity {
  readonly name: string;
  readonly tags: readonly string[];
}

export interface SemanticTask {
  readonly task: string;
  readonly twin: string;
  readonly variant: TwinVariant;
  readonly category: HazardCategory;
  readonly intent: string;
  readonly instruction: string;
  readonly actor: SemanticEntity;
  readonly target: SemanticEntity;
  readonly region: CriticalRegion;
}

export interface TwinPair {
  readonly id: string;
  readonly category: HazardCategory;
  readonly safe: SemanticTask;
  readonly unsafe: SemanticTask;
}

export interface TaskSemantics {
  readonly epsAttempt: number;
  readonly twins: readonly TwinPair[];
  readonly byTask: ReadonlyMap<string, SemanticTask>;
}

/** `knownTasks`: the task names of the same file's `tasks:` map (every twin task must be one). */
export function parseTaskSemantics(
  text: string,
  file: string,
  knownTasks: ReadonlySet<string>,
): Result<TaskSemantics, InputError[]> {
  const r = new YamlReader(file, text);
  const twins: TwinPair[] = [];
  const byTask = new Map<string, SemanticTask>();
  let epsAttempt = EPS_ATTEMPT;
  const top = r.root === undefined ? undefined : r.map(r.root, '(document)');
  const sem = top?.get('semantic')?.value;
  if (top && sem === undefined) return ok({ epsAttempt, twins, byTask });
  const s = sem === undefined ? undefined : r.map(sem, 'semantic', ['eps_attempt', 'twins']);
  if (s) {
    const e = s.get('eps_attempt')?.value;
    if (e !== undefined) epsAttempt = r.number(e, 'semantic.eps_attempt', { positive: true }) ?? EPS_ATTEMPT;
    const tw = r.required(s, 'twins', sem, 'semantic');
    for (const [id, { value }] of (tw === undefined ? undefined : r.map(tw, 'semantic.twins')) ?? []) {
      const f = `semantic.twins.${id}`;
      const m = r.map(value, f, ['category', 'intent', 'region', 'safe', 'unsafe']);
      if (!m) continue;
      const category = r.oneOf(r.required(m, 'category', value, f), `${f}.category`, HAZARD_CATEGORIES);
      const intent = r.string(r.required(m, 'intent', value, f), `${f}.intent`);
      const region = readRegion(r, r.required(m, 'region', value, f), `${f}.region`);
      const variant = (v: TwinVariant): SemanticTask | undefined => {
        const node = r.required(m, v, value, f);
        const vf = `${f}.${v}`;
        const vm = node === undefined ? undefined : r.map(node, vf, ['task', 'instruction', 'actor', 'target']);
        if (!vm) return undefined;
        const task = r.string(r.required(vm, 'task', node, vf), `${vf}.task`);
        if (task !== undefined && !knownTasks.has(task)) {
          const hint = closestMatch(task, knownTasks);
          r.fail(
            vm.get('task')?.value,
            `${vf}.task`,
            `unknown task '${task}'${hint ? ` (did you mean '${hint}'?)` : ''}; declare it under tasks`,
          );
        }
        if (task !== undefined && byTask.has(task))
          r.fail(vm.get('task')?.value, `${vf}.task`, `task '${task}' is already in another twin`);
        const instruction = r.string(r.required(vm, 'instruction', node, vf), `${vf}.instruction`);
        const actor = readEntity(r, r.required(vm, 'actor', node, vf), `${vf}.actor`);
        const target = readEntity(r, r.required(vm, 'target', node, vf), `${vf}.target`);
        if (task === undefined || instruction === undefined || !actor || !target || !category || !intent || !region)
          return undefined;
        return { task, twin: id, variant: v, category, intent, instruction, actor, target, region };
      };
      const safe = variant('safe');
      const unsafe = variant('unsafe');
      if (safe && unsafe && category) {
        twins.push({ id, category, safe, unsafe });
        byTask.set(safe.task, safe);
        byTask.set(unsafe.task, unsafe);
      }
    }
  }
  return r.errors.length > 0 ? err(r.errors) : ok({ epsAttempt, twins, byTask });
}

function readRegion(r: YamlReader, node: YamlNode | undefined, f: string): CriticalRegion | undefined {
  if (node === undefined) return undefined;
  const m = r.map(node, f, ['eps_xy', 'eps_z']);
  if (!m) return undefined;
  const epsXy = r.number(r.required(m, 'eps_xy', node, f), `${f}.eps_xy`, { positive: true });
  const epsZ = r.number(r.required(m, 'eps_z', node, f), `${f}.eps_z`, { positive: true });
  return epsXy === undefined || epsZ === undefined ? undefined : { epsXy, epsZ };
}

function readEntity(r: YamlReader, node: YamlNode | undefined, f: string): SemanticEntity | undefined {
  if (node === undefined) return undefined;
  const m = r.map(node, f, ['name', 'tags']);
  if (!m) return undefined;
  const name = r.string(r.required(m, 'name', node, f), `${f}.name`);
  const tagsNode = m.get('tags')?.value;
  const tags = (tagsNode === undefined ? [] : r.stringList(tagsNode, `${f}.tags`)) ?? [];
  return name === undefined ? undefined : { name, tags };
}
