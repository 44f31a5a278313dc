import { spawn } from 'node:child_process';

/**
 * Creates a PGlite cluster in `pgData` from a child Node process and waits for it to exit. What initdb
 * allocates (a second PostgreSQL instance and the cluster's tarball) goes with that process; in this one
 * the freed WebAssembly memory and buffers would stay in the RSS.
 */
export function initdbInChildProcess(pgData: string): Promise<void> {
  // The module is resolved here, from this package, so the child works from any working directory.
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const script = `
    const { PGlite } = await import(process.argv[1]);
    const db = await PGlite.create({ dataDir: process.argv[2] });
    await db.close();
  `;
  return new Promise((resolve, reject) => {
    // Liftoff only, as the server runs PGlite (embedded-postgres.ts): no optimizing compiles to wait for.
    const args = ['--liftoff-only', '--input-type=module', '-e', script, pglite, pgData];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `creating the embedded database in ${pgData} failed (${code ?? signal}): ${stderr.trim()}`,
          ),
        );
    });
  });
}
