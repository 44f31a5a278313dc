import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding `package.json` and `config/`. Found by walking up, because the code runs from
 * `src/` (through tsx) or from `dist/src/` (the build) at different depths.
 */
export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${start}`);
  }
}
