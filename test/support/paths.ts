import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/** Repository root (this file is test/support/paths.ts). */
export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The project's shared folder: `../shared` beside the checkout (CI lays a copy there too). */
export const sharedDir = process.env.ARMGUARD_SHARED ?? resolve(repoRoot, '../shared');
