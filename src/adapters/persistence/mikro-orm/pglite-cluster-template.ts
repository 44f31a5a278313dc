import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../../../package-root.ts';

/**
 * Where `make build` leaves a fresh PGlite cluster, which a first start copies instead of running initdb
 * (decision 0042). Named after the PGlite release that made it: a cluster is only valid for the
 * PostgreSQL build that created it, so a template left by another release is never found.
 */
export function pgliteClusterTemplate(): string {
  return join(PACKAGE_ROOT, 'dist', `pglite-cluster-${pgliteVersion()}`);
}

/** PGlite's own package.json, beside its entry point (its `exports` do not list the file). */
function pgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const packageJson = join(dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}
