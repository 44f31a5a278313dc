import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
};

export const VERSION: string = manifest.version;

/** The package's license (SPDX), as the API description states it. */
export const LICENSE: string = manifest.license;
