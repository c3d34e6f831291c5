import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EXIT, parseArgs, type Command } from '../command.js';
import { appendLabel } from '../../episode/append-label.js';
import type { LabelInput } from '../../episode/types.js';
import { MANUAL_VERDICTS, type ManualVerdict } from '../../schema/trace.js';
import { defaultSpecPaths, loadScoringSpec } from '../spec-files.js';
import { closestMatch } from '../../util/levenshtein.js';
import { InputError } from '../../util/errors.js';

export const labelCommand: Command = {
  name: 'label',
  help: `usage: armguard label <episode.mcap> [--success | --failure] [--task <id>] [--policy <name>]
                      [--manual <clause>=<verdict>[,...]] [--note <text>] [--by <name>] [--index <episodes.jsonl>]

Appends one label record to an armguard episode file after the fact (operator review, video-judged
clause verdicts). Recorded data is never rewritten: the label is a new message, and the episode's
effective label is the fold of all its label records, so a later label corrects an earlier one.
The episode index beside the file (episodes.jsonl) gets an updated line when the file is listed.

options:
  --success / --failure   task outcome
  --task <id>             task id (as in spec/tasks.yaml)
  --policy <name>         policy that ran the episode
  --manual <list>         video-judged verdicts, clause=violated|satisfied|not_applicable, comma-separated
  --note <text>           free text
  --by <name>             who labels (default: operator)
  --index <file>          episode index to update (default: episodes.jsonl beside the file, if present)

examples:
  armguard label episodes/so101-a-20261129T101500Z-003.mcap --success
  armguard label ep.mcap --failure --manual non_target_max_disp=violated --note "cup knocked over (video 12:04)"`,
  async run(args, io) {
    const parsed = parseArgs(args, {
      strings: ['task', 'policy', 'manual', 'note', 'by', 'index'],
      booleans: ['success', 'failure'],
    });
    if (!parsed.ok) {
      io.err(`armguard label: ${parsed.error}`);
      return EXIT.usage;
    }
    const [file, ...extra] = parsed.positionals;
    if (file === undefined || extra.length > 0) {
      io.err('armguard label: give exactly one episode file (usage: armguard label <episode.mcap> --success)');
      return EXIT.usage;
    }
    const o = parsed.options;
    if (o.get('success') === true && o.get('failure') === true) {
      io.err('armguard label: --success and --failure contradict each other');
      return EXIT.usage;
    }
    const str = (k: string): string | undefined => {
      const v = o.get(k);
      return typeof v === 'string' ? v : undefined;
    };
    const input: LabelInput = { source: 'operator', by: str('by') ?? 'operator' };
    if (o.get('success') === true) input.success = true;
    if (o.get('failure') === true) input.success = false;
    const task = str('task');
    const policy = str('policy');
    const note = str('note');
    if (policy !== undefined) input.policy = policy;
    if (note !== undefined) input.note = note;
    const manualText = str('manual');
    if (task !== undefined || manualText !== undefined) {
      const spec = loadScoringSpec(defaultSpecPaths());
      if (!spec.ok) {
        for (const p of spec.problems) io.err(p);
        return EXIT.failure;
      }
      if (task !== undefined) {
        const known = [...spec.spec.tasks.tasks.keys()];
        if (!known.includes(task)) {
          const hint = closestMatch(task, known);
          io.err(`armguard label: --task: unknown task '${task}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
          return EXIT.usage;
        }
        input.taskId = task;
      }
      if (manualText !== undefined) {
        const clauses = spec.spec.library.clauses.map((c) => c.id);
        const manual: Record<string, ManualVerdict> = {};
        for (const item of manualText.split(',')) {
          const [clause, verdict, ...rest] = item.trim().split('=');
          if (clause === undefined || verdict === undefined || rest.length > 0 || clause === '') {
            io.err(`armguard label: --manual: expected clause=verdict, got '${item.trim()}'`);
            return EXIT.usage;
          }
          if (!clauses.includes(clause)) {
            const hint = closestMatch(clause, clauses);
            io.err(`armguard label: --manual: unknown clause '${clause}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
            return EXIT.usage;
          }
          if (!(MANUAL_VERDICTS as readonly string[]).includes(verdict)) {
            io.err(
              `armguard label: --manual: verdict for '${clause}' must be one of ${MANUAL_VERDICTS.join(', ')}, got '${verdict}'`,
            );
            return EXIT.usage;
          }
          manual[clause] = verdict as ManualVerdict;
        }
        input.manual = manual;
      }
    }
    if (
      input.success === undefined &&
      input.taskId === undefined &&
      input.policy === undefined &&
      input.manual === undefined &&
      input.note === undefined
    ) {
      io.err('armguard label: nothing to label: give --success/--failure, --task, --policy, --manual or --note');
      return EXIT.usage;
    }
    const besideIndex = join(dirname(file), 'episodes.jsonl');
    const index = str('index') ?? (existsSync(besideIndex) ? besideIndex : undefined);
    try {
      const record = await appendLabel(file, input, index !== undefined ? { index } : {});
      io.out(
        `${file}: label appended ${JSON.stringify(record)}${index !== undefined ? ` (index ${index} updated)` : ''}`,
      );
      return EXIT.ok;
    } catch (e) {
      io.err(e instanceof InputError ? e.message : `${file}: ${(e as Error).message}`);
      return EXIT.failure;
    }
  },
};
