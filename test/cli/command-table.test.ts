import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { main } from '../../src/cli/main.js';
import { fileCheckers } from '../../src/cli/commands/check.js';
import { replayInputs } from '../../src/cli/commands/replay.js';
import { findPackageRoot, packageVersion, userOrPackagePath } from '../../src/platform/package-files.js';
import { captureIo } from '../support/cli-io.js';
import { repoRoot } from '../support/paths.js';

describe('the lazy command table', () => {
  it('lists every module in src/cli/commands once, and each loader yields the command of that name', async () => {
    const modules = readdirSync(join(repoRoot, 'src/cli/commands'))
      .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
      .map((f) => f.slice(0, -3))
      .sort();
    expect(commands.map((c) => c.name).sort()).toEqual(modules);
    for (const entry of commands) {
      const command = await entry.load();
      expect(command.name).toBe(entry.name);
      expect(command.help).toMatch(/usage: armguard/);
      expect(entry.summary.length).toBeGreaterThan(10);
    }
  });

  it('--help lists every command with its summary from the table', async () => {
    const c = captureIo();
    expect(await main(['--help'], c.io)).toBe(0);
    const text = c.out.join('\n');
    for (const entry of commands)
      expect(text).toMatch(
        new RegExp(`^  ${entry.name} +${entry.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
      );
  });

  it('no --help example points into a checkout (../shared, test/, the repository): they must work from an installed package (.ci/package-check runs them)', async () => {
    for (const entry of commands) {
      const command = await entry.load();
      const examples = command.help.split('\n').filter((l) => /^ {2}.*armguard /.test(l));
      for (const line of examples)
        expect(line, `${entry.name}: ${line}`).not.toMatch(/\.\.\/|(^|\s)(test|bench|src)\/|shared\/data/);
    }
    // the replay examples name a dataset where LeRobot records it and the calibration of the arm that recorded it
    const replay = await commands.find((c) => c.name === 'replay')!.load();
    expect(replay.help).toContain(
      'armguard replay --calibration calibration/so101-follower1.yaml --task so101-pick-butter ~/.cache/huggingface/lerobot/lab/so101-pick',
    );
  });

  it('<command> --help loads that command and prints its help', async () => {
    const c = captureIo();
    expect(await main(['stl', '--help'], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/usage: armguard stl/);
  });

  it('--version prints the version in package.json (it was a hard-coded string)', async () => {
    const c = captureIo();
    expect(await main(['--version'], c.io)).toBe(0);
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(c.out).toEqual([`armguard ${version}`]);
    expect(packageVersion()).toBe(version);
  });

  it('check and replay know every file kind and input kind without side-effect imports', () => {
    expect(fileCheckers.map((c) => c.kind)).toEqual([
      'STL spec (.stl)',
      expect.stringMatching(/^clause library/),
      expect.stringMatching(/^task map/),
      expect.stringMatching(/^platform profiles/),
      'SO-101 calibration',
      expect.stringMatching(/^hazard lexicon/),
    ]);
    expect(replayInputs.map((i) => i.kind)).toEqual([
      expect.stringMatching(/LeRobot/),
      expect.stringMatching(/rosbag2/),
    ]);
  });

  it('check validates the shipped spec files named relative to the package, from any working directory', async () => {
    const c = captureIo();
    const cwd = process.cwd();
    process.chdir(join(repoRoot, 'docs'));
    try {
      expect(
        await main(
          ['check', 'spec/clauses.yaml', 'spec/tasks.yaml', 'spec/platforms.yaml', 'calibration/so101-demo.yaml'],
          c.io,
        ),
      ).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    // one 'ok' line per file; the clause library's prevention explanation follows its line, indented
    const files = c.out.filter((l) => !l.startsWith('  '));
    expect(files).toHaveLength(4);
    expect(files.every((l) => l.startsWith(repoRoot))).toBe(true);
    expect(c.out.filter((l) => l.startsWith('  ')).length).toBeGreaterThan(0);
    // every CBF constraint the library declares is built on both arms: none is marked stopped only
    expect(c.out.filter((l) => l.includes('stopped only'))).toEqual([]);
    expect(c.out.some((l) => /self-collision pair and held-object tilt/.test(l))).toBe(true);
  });
});

describe('package files', () => {
  it('finds the package root from a nested directory, and names the package it looked for when there is none', () => {
    expect(findPackageRoot(join(repoRoot, 'src/cli/commands'))).toBe(repoRoot);
    expect(() => findPackageRoot(join(repoRoot, 'src'), 'no-such-package')).toThrow(
      /no package.json of 'no-such-package' above/,
    );
  });

  it('a user path wins over the shipped copy; a missing one stays as given so the error names it', () => {
    const cwd = process.cwd();
    try {
      process.chdir(join(repoRoot, 'docs'));
      expect(userOrPackagePath('calibration/so101-demo.yaml')).toBe(join(repoRoot, 'calibration/so101-demo.yaml'));
      expect(userOrPackagePath('trace-format.md')).toBe('trace-format.md'); // exists in the working directory
      expect(userOrPackagePath('calibration/so101-nope.yaml')).toBe('calibration/so101-nope.yaml');
      expect(userOrPackagePath('/nonexistent/x.yaml')).toBe('/nonexistent/x.yaml');
      // only the shipped example directories, never a path leaving them
      expect(userOrPackagePath('README.md')).toBe('README.md');
      expect(userOrPackagePath('src/index.ts')).toBe('src/index.ts');
      expect(userOrPackagePath('spec/../package.json')).toBe('spec/../package.json');
    } finally {
      process.chdir(cwd);
    }
  });
});
