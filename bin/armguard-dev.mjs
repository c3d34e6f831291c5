#!/usr/bin/env node
// Checkout-only entry (not shipped): runs the TypeScript sources through tsx, a devDependency, so
// tests and development see source edits without a build. Users run bin/armguard.mjs (compiled).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
