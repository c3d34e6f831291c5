/**
 * Custom tasks and clauses without editing the package: --tasks/--clauses on run, ros-node,
 * replay (score and report had them), validated by `armguard check`, and each file's path and
 * content hash recorded in every episode of a run.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseRunArgs } from '../../src/cli/commands/run.js';
import { rosNodeCommand } from '../../src/cli/commands/ros-node.js';
import { replayCommand } from '../../src/cli/commands/replay.js';
import { loadScoringSpec, specPathsFrom } from '../../src/cli/spec-files.js';
import { captureIo } from '../support/cli-io.js';
import { repoRoot } from '../support/paths.js';

const CAL = join(repoRoot, 'calibration/so101-demo.yaml');
const shipped = readFileSync(join(repoRoot, 'spec/tasks.yaml'), 'utf8');

function labFiles(): { dir: string; tasks: string; broken: string } {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-spec-'));
  const tasks = join(dir, 'lab-tasks.yaml');
  // a lab task added at the top of the tasks: map (the shipped file has more sections after it)
  const withTask = (line: string) => shipped.replace(/^tasks:\n/m, `tasks:\n  ${line}\n`);
  writeFileSync(tasks, withTask('lab-sponge-into-bin: { templates: [pnp-into-container], objects: [non_spillable] }'));
  const broken = join(dir, 'broken-tasks.yaml');
  writeFileSync(broken, withTask('lab-bad: { templates: [pnp-into-bucket] }'));
  return { dir, tasks, broken };
}

const sha = (path: string) => `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;

describe('--tasks / --clauses', () => {
  it('armguard check validates a lab task map, and names the line of a bad template', async () => {
    const { tasks, broken } = labFiles();
    const ok = captureIo();
    expect(await main(['check', tasks], ok.io), ok.err.join('\n')).toBe(0);
    const bad = captureIo();
    expect(await main(['check', broken], bad.io)).toBe(1);
    expect(bad.err.join('\n')).toMatch(/broken-tasks\.yaml.*pnp-into-bucket/);
  });

  it('loadScoringSpec records each file with its content hash', () => {
    const { tasks } = labFiles();
    const l = loadScoringSpec(specPathsFrom((k) => (k === 'tasks' ? tasks : undefined)));
    expect(l.ok).toBe(true);
    if (!l.ok) return;
    expect(l.versions).toMatchObject({
      tasksFile: tasks,
      tasks: sha(tasks),
      clausesFile: join(repoRoot, 'spec/clauses.yaml'),
      clauseLibrary: sha(join(repoRoot, 'spec/clauses.yaml')),
    });
    expect(l.spec.tasks.tasks.has('lab-sponge-into-bin')).toBe(true);
  });

  it('run so101 --tasks: a lab task is known only with the lab file, and the hashes go to the session (episode versions)', async () => {
    const { tasks } = labFiles();
    // an external broker: no access file needed to parse the arguments
    const base = [
      'so101',
      '--emulator',
      '--calibration',
      CAL,
      '--task',
      'lab-sponge-into-bin',
      '--mqtt',
      'mqtt://127.0.0.1:1883',
    ];
    const without = await parseRunArgs(base);
    expect(without.ok ? '' : without.errors.join('\n')).toMatch(/unknown task 'lab-sponge-into-bin'/);
    const withTasks = await parseRunArgs([...base, '--tasks', tasks]);
    expect(withTasks.ok).toBe(true);
    if (withTasks.ok) expect(withTasks.options.specVersions).toMatchObject({ tasksFile: tasks, tasks: sha(tasks) });
  });

  it('ros-node --check and replay take --tasks too', async () => {
    const { dir, tasks } = labFiles();
    const params = join(dir, 'fr3-lab.yaml');
    writeFileSync(
      params,
      readFileSync(join(repoRoot, 'launch/params/fr3.yaml'), 'utf8').replace(
        'task: libero-spatial-pick-bowl',
        'task: lab-sponge-into-bin',
      ),
    );
    const a = captureIo();
    expect(await rosNodeCommand.run(['--params', params, '--tasks', tasks, '--check'], a.io)).toBe(0);
    expect(a.out[0]).toMatch(/task lab-sponge-into-bin/);
    const b = captureIo();
    expect(await main(['ros-node', '--params', params, '--check'], b.io)).toBe(1);
    expect(b.err.join('\n')).toMatch(/unknown task 'lab-sponge-into-bin'/);
    const c = captureIo();
    // replay parses --tasks/--clauses for every input kind (a bad path is refused naming it)
    expect(await replayCommand.run(['--clauses', join(dir, 'missing.yaml'), join(dir, 'nothing-here')], c.io)).not.toBe(
      2,
    );
  });
});
