#!/usr/bin/env node
// The `armguard` command: runs the compiled CLI in dist/ (`npm run build`; `npm pack` builds it
// through `prepack`). No TypeScript loader: from a checkout without a build, use bin/armguard-dev.mjs.
let cli;
try {
  cli = await import('../dist/src/cli/main.js');
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist/src/cli/main.js')) throw e;
  process.stderr.write(
    'armguard: the compiled CLI (dist/src/cli/main.js) is missing — in a checkout run `npm run build` first, or `node bin/armguard-dev.mjs` to run the TypeScript sources\n',
  );
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
