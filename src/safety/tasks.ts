/**
 * Task templates and tasks → tags (spec/tasks.yaml). A task's tags are the union of its templates'
 * tags and its object tags (seeds/000 §3.2: combined templates unite their tags).
 */
import type { InputError } from '../util/index.js';
import { type Result, closestMatch, err, ok } from '../util/index.js';
import { YamlReader, type YamlNode } from '../schema/yaml-reader.js';
import { SIGNAL_TAG_PREFIX } from './clause.js';

export interface TaskTemplate {
  readonly name: string;
  readonly tags: readonly string[];
  readonly description: string;
}
export interface TaskEntry {
  readonly name: string;
  readonly templates: readonly string[];
  readonly objects: readonly string[];
}
export interface TaskMap {
  readonly templates: ReadonlyMap<string, TaskTemplate>;
  readonly tasks: ReadonlyMap<string, TaskEntry>;
}

/** A resolved tag set; `origin` says where each semantic tag came from, for explanations. */
export interface TaskTags {
  readonly tags: ReadonlySet<string>;
  readonly origin: ReadonlyMap<string, string>;
}

/** `knownTags`: the clause library's semantic tag vocabulary. */
export function parseTaskMap(
  text: string,
  file: string,
  knownTags: ReadonlyMap<string, string>,
): Result<TaskMap, InputError[]> {
  const r = new YamlReader(file, text);
  const templates = new Map<string, TaskTemplate>();
  const tasks = new Map<string, TaskEntry>();
  const top =
    r.root === undefined
      ? undefined
      : r.map(r.root, '(document)', ['kind', 'version', 'templates', 'tasks', 'semantic']);
  if (top) {
    const kind = r.required(top, 'kind', r.root, '(document)');
    if (kind !== undefined && r.string(kind, 'kind') !== 'armguard/tasks')
      r.fail(kind, 'kind', "expected 'armguard/tasks'");
    const tplNode = r.required(top, 'templates', r.root, '(document)');
    for (const [name, { value }] of (tplNode === undefined ? undefined : r.map(tplNode, 'templates')) ?? []) {
      const f = `templates.${name}`;
      const e = r.map(value, f, ['tags', 'description']);
      if (!e) continue;
      const tagsNode = r.required(e, 'tags', value, f);
      const tags = (tagsNode === undefined ? undefined : r.stringList(tagsNode, `${f}.tags`)) ?? [];
      for (const t of tags) checkSemanticTag(r, t, knownTags, tagsNode, `${f}.tags`);
      const description = r.string(r.required(e, 'description', value, f), `${f}.description`) ?? '';
      templates.set(name, { name, tags, description });
    }
    const tasksNode = top.get('tasks')?.value;
    for (const [name, { value }] of (tasksNode === undefined ? undefined : r.map(tasksNode, 'tasks')) ?? []) {
      const f = `tasks.${name}`;
      const e = r.map(value, f, ['templates', 'objects']);
      if (!e) continue;
      const tNode = r.required(e, 'templates', value, f);
      const tpl = (tNode === undefined ? undefined : r.stringList(tNode, `${f}.templates`)) ?? [];
      if (tNode !== undefined && tpl.length === 0)
        r.fail(tNode, `${f}.templates`, 'a task needs at least one template');
      for (const t of tpl) {
        if (!templates.has(t)) {
          const hint = closestMatch(t, templates.keys());
          r.fail(tNode, `${f}.templates`, `unknown template '${t}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
        }
      }
      const oNode = e.get('objects')?.value;
      const objects = (oNode === undefined ? [] : r.stringList(oNode, `${f}.objects`)) ?? [];
      for (const o of objects) checkSemanticTag(r, o, knownTags, oNode, `${f}.objects`);
      tasks.set(name, { name, templates: tpl, objects });
    }
  }
  return r.errors.length > 0 ? err(r.errors) : ok({ templates, tasks });
}

function checkSemanticTag(
  r: YamlReader,
  tag: string,
  known: ReadonlyMap<string, string>,
  node: YamlNode,
  field: string,
): void {
  if (tag.startsWith(SIGNAL_TAG_PREFIX)) {
    r.fail(node, field, `'${tag}': signal tags come from the platform, not from tasks`);
  } else if (!known.has(tag)) {
    const hint = closestMatch(tag, known.keys());
    r.fail(
      node,
      field,
      `unknown tag '${tag}'${hint ? ` (did you mean '${hint}'?)` : ''}; the clause library declares ${[...known.keys()].join(', ')}`,
    );
  }
}

/**
 * The tag set of a task: a named task from the map and/or explicit templates and object tags,
 * all united. Errors name the unknown template, task or tag.
 */
export function resolveTaskTags(
  map: TaskMap,
  spec: { task?: string; templates?: readonly string[]; objects?: readonly string[] },
  knownTags: ReadonlyMap<string, string>,
): Result<TaskTags, string> {
  const tags = new Set<string>();
  const origin = new Map<string, string>();
  const add = (tag: string, from: string) => {
    if (!knownTags.has(tag)) return `unknown tag '${tag}' (from ${from})`;
    tags.add(tag);
    if (!origin.has(tag)) origin.set(tag, from);
    return undefined;
  };
  const templates = [...(spec.templates ?? [])];
  const objects = [...(spec.objects ?? [])];
  if (spec.task !== undefined) {
    const entry = map.tasks.get(spec.task);
    if (!entry) {
      const hint = closestMatch(spec.task, map.tasks.keys());
      return err(`unknown task '${spec.task}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
    }
    templates.push(...entry.templates);
    objects.push(...entry.objects);
  }
  for (const name of templates) {
    const tpl = map.templates.get(name);
    if (!tpl) {
      const hint = closestMatch(name, map.templates.keys());
      return err(`unknown task template '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
    }
    for (const t of tpl.tags) {
      const e = add(t, `template ${name}`);
      if (e) return err(e);
    }
  }
  for (const o of objects) {
    const e = add(o, 'object tag');
    if (e) return err(e);
  }
  return ok({ tags, origin });
}
