/**
 * What `npm pack` ships and what the shipped code may import. The full check — pack with the build,
 * install --omit=dev offline into an empty directory, run the installed commands and README's
 * library examples — is .ci/package-check (minutes: it builds and installs); these are the fast
 * static halves of it, run by `npm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

interface Manifest {
  version: string;
  license: string;
  main: string;
  types: string;
  bin: Record<string, string>;
  files: string[];
  exports: Record<string, string | { types: string; default: string }>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;

/** The file list `npm pack` would write, without running prepack (no build here). */
function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

/** The TypeScript source tsconfig.build.json compiles into a dist/ path (dist/src/x.js ← src/x.ts). */
function sourceOf(distPath: string): string {
  return distPath
    .replace(/^\.\//, '')
    .replace(/^dist\//, '')
    .replace(/\.d\.ts$|\.js$/, '.ts');
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(repoRoot, join(e.parentPath, e.name)));
}

/** Bare module specifiers a file imports at run time (type-only imports are erased by the build). */
function runtimeImports(text: string): string[] {
  const specs: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm))
    if (!m[2]) specs.push(m[3]!);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) specs.push(m[1]!);
  return specs.filter((s) => !s.startsWith('.') && !s.startsWith('/'));
}
const packageName = (spec: string): string =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;

describe('the packed tarball', () => {
  const files = packedFiles();

  it('ships the user-facing files and none of the tests, benches, TypeScript sources or dev entry', () => {
    for (const f of [
      'package.json',
      'README.md',
      'hardware.md',
      'LICENSE',
      'bin/armguard.mjs',
      'spec/clauses.yaml',
      'spec/tasks.yaml',
      'spec/platforms.yaml',
      'calibration/so101-demo.yaml',
      'calibration/so101-demo.residual.onnx',
      'launch/armguard_franka.launch.xml',
      'launch/params/fr3.yaml',
      'docs/trace-format.md',
    ]) {
      expect(files, f).toContain(f);
    }
    const unwanted = files.filter((f) =>
      /(^|\/)(test|bench)\/|\.test\.|^src\/|^drivers\/|^tsconfig|^\.ci\/|^bin\/armguard-dev|eslint|vitest|\.npmrc/.test(
        f,
      ),
    );
    expect(unwanted).toEqual([]);
  });

  it('ships dist/ for every entry point: main, types, exports and bins are dist files built from an existing source', () => {
    expect(manifest.files).toEqual(expect.arrayContaining(['dist/src', 'dist/drivers']));
    const targets = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((e) => (typeof e === 'string' ? [e] : [e.types, e.default])),
    ]
      .map((t) => t.replace(/^\.\//, ''))
      .filter((t) => t !== 'package.json' && t !== 'bin/armguard.mjs');
    expect(targets.length).toBeGreaterThan(10);
    for (const t of targets) {
      expect(t, t).toMatch(/^dist\/(src|drivers)\//);
      expect(existsSync(join(repoRoot, sourceOf(t))), `${t} ← ${sourceOf(t)}`).toBe(true);
    }
    const build = JSON.parse(readFileSync(join(repoRoot, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: Record<string, unknown>;
      include: string[];
    };
    expect(build.include).toEqual(['src', 'drivers']);
    expect(build.compilerOptions).toMatchObject({
      outDir: 'dist',
      rootDir: '.',
      declaration: true,
      sourceMap: true,
      noEmit: false,
    });
    // when a build is present (after `npm run build` / `npm pack`), the tarball carries it
    if (existsSync(join(repoRoot, 'dist/src/cli/main.js'))) for (const t of targets) expect(files, t).toContain(t);
  });

  it('the bin runs the compiled CLI and needs no TypeScript loader (the installed bin used to import tsx)', () => {
    const bin = readFileSync(join(repoRoot, manifest.bin.armguard!), 'utf8');
    expect(bin.startsWith('#!/usr/bin/env node')).toBe(true);
    expect(bin).toContain("import('../dist/src/cli/main.js')");
    expect(runtimeImports(bin)).toEqual([]);
    for (const b of ['armguard-feetech-probe', 'armguard-feetech-emulator']) {
      expect(
        readFileSync(join(repoRoot, sourceOf(manifest.bin[b]!)), 'utf8').startsWith('#!/usr/bin/env node'),
        b,
      ).toBe(true);
    }
  });

  it('the bin without a build says what is missing and how to get it, and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-bin-'));
    try {
      mkdirSync(join(dir, 'bin'));
      copyFileSync(join(repoRoot, 'bin/armguard.mjs'), join(dir, 'bin/armguard.mjs'));
      const r = spawnSync(process.execPath, [join(dir, 'bin/armguard.mjs'), '--help'], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /the compiled CLI \(dist\/src\/cli\/main\.js\) is missing — in a checkout run `npm run build` first/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is Apache-2.0 with the licence text', () => {
    expect(manifest.license).toBe('Apache-2.0');
    expect(readFileSync(join(repoRoot, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
  });
});

describe('what the shipped code imports', () => {
  const shipped = [...tsFiles('src'), ...tsFiles('drivers')];
  const optional = Object.keys(manifest.peerDependencies).filter((p) => manifest.peerDependenciesMeta[p]?.optional);

  it('only dependencies, optional peers and Node built-ins — nothing a --omit=dev install lacks', () => {
    const builtins = new Set(builtinModules);
    const bad: string[] = [];
    for (const file of shipped) {
      for (const spec of runtimeImports(readFileSync(join(repoRoot, file), 'utf8'))) {
        const name = packageName(spec);
        if (spec.startsWith('node:') || builtins.has(name) || name in manifest.dependencies || optional.includes(name))
          continue;
        bad.push(`${file}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('onnxruntime-node is an optional peer, imported at run time by drivers/so101/onnx-residual.ts alone and only on first use', () => {
    expect(manifest.dependencies['onnxruntime-node']).toBeUndefined();
    expect(optional).toContain('onnxruntime-node');
    expect(manifest.devDependencies['onnxruntime-node']).toBeDefined(); // tests and calibrate from a checkout
    const importers = shipped.filter((f) =>
      runtimeImports(readFileSync(join(repoRoot, f), 'utf8')).includes('onnxruntime-node'),
    );
    expect(importers).toEqual(['drivers/so101/onnx-residual.ts']);
    const text = readFileSync(join(repoRoot, importers[0]!), 'utf8');
    expect(text).not.toMatch(/^import (?!type)[^;]*'onnxruntime-node'/m); // no static import: loading the module does not load the runtime
  });

  it('the import scanner sees static, re-exported and dynamic imports and skips type-only ones', () => {
    const text =
      "import a from 'x';\nimport type { B } from 'y';\nexport { c } from '@s/z/deep';\nconst m = await import('w');\nimport './local.js';\n";
    expect(runtimeImports(text)).toEqual(['x', '@s/z/deep', 'w']);
  });
});
