/**
 * The package's own files — spec/, calibration/, launch/, package.json — located from this module,
 * never from the working directory: the same code runs from a checkout (src/platform/*.ts through tsx)
 * and from an installed package (dist/src/platform/*.js under node_modules/armguard).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Walk up from `start` to the directory whose package.json names `name`. */
export function findPackageRoot(start: string, name = 'armguard'): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === name)
      return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json of '${name}' above ${start}`);
  }
}

/** The armguard package directory (the checkout, or node_modules/armguard when installed). */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the package, e.g. packageFile('spec', 'clauses.yaml'). */
export function packageFile(...parts: string[]): string {
  return resolve(PACKAGE_ROOT, ...parts);
}

/** The version in the package's package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
}

/** The directories of shipped example files a user may name by their package-relative path. */
const SHIPPED_DIRS = ['calibration', 'launch', 'spec'];

/**
 * A path the user gave that may name one of the package's shipped example files: as given when it
 * exists (relative to the working directory) or is absolute; otherwise the package's own copy when
 * it names one under calibration/, launch/ or spec/ (`calibration/so101-demo.yaml`,
 * `launch/params/fr3.yaml`, `spec/tasks.yaml` work the same from a checkout and from an installed
 * package); otherwise as given, so errors name it.
 */
export function userOrPackagePath(path: string): string {
  if (isAbsolute(path) || existsSync(path)) return path;
  const inPackage = normalize(path).split(sep);
  if (!SHIPPED_DIRS.includes(inPackage[0] ?? '') || inPackage.includes('..')) return path;
  const shipped = packageFile(path);
  return existsSync(shipped) ? shipped : path;
}
