import { existsSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { DataDirLock } from './data-dir-lock.ts';
import { pgliteClusterTemplate } from './pglite-cluster-template.ts';
import { initdbInChildProcess } from './pglite-initdb.ts';
import { compiledPgliteWasm } from './pglite-wasm.ts';

/** `dataDir` value for a throw-away in-memory database (tests): no files, no lock. */
export const IN_MEMORY = 'memory://';

export type EmbeddedPostgres = {
  readonly db: PGlite;
  close(): Promise<void>;
};

const keepText = (value: string) => value;

/**
 * Values come back as MikroORM's pg setup returns them from a real server, so the code above sees one
 * behaviour: date, timestamp, timestamptz, interval, int8 and numeric as text (PGlite's defaults are Date,
 * number-or-BigInt and number). PGlite parses array elements with these same parsers.
 */
const PARSERS = Object.fromEntries([1082, 1114, 1184, 1186, 20, 1700].map((oid) => [oid, keepText]));

/**
 * PGlite's PostgreSQL is one backend in this process's WebAssembly memory, so its shared buffers are this
 * process's RSS, touched at start. PostgreSQL's default (128 MB) suits a server with many backends; here the
 * data files sit in the OS page cache anyway, so a small pool costs a cache miss that is a read from memory
 * (decision 0020). `wal_buffers` follows (1/32 of it).
 */
const SHARED_BUFFERS = '16MB';

const START_PARAMS = [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`];

export type EmbeddedPostgresOptions = {
  /** A fresh cluster a first start copies instead of running initdb; by default the build's (`make build`). */
  readonly clusterTemplate?: string;
};

/** Starts PGlite in `<dataDir>/pglite`, holding the data directory's lock while it runs. */
export async function openEmbeddedPostgres(
  dataDir: string,
  { clusterTemplate }: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  // Compiled while the data directory is locked (and, on a first start, its cluster copied), unless `serve`
  // started it already.
  const wasm = compiledPgliteWasm();
  const options = async () => {
    const pgliteWasmModule = await wasm;
    return { parsers: PARSERS, startParams: START_PARAMS, ...(pgliteWasmModule ? { pgliteWasmModule } : {}) };
  };
  if (dataDir === IN_MEMORY) {
    const db = await PGlite.create({ dataDir: IN_MEMORY, ...(await options()) });
    return { db, close: () => db.close() };
  }
  // The lock also creates the directory; PGlite needs the parent of its own directory to exist.
  const lock = await DataDirLock.acquire(dataDir);
  try {
    const pgData = join(dataDir, 'pglite');
    if (!existsSync(join(pgData, 'PG_VERSION')))
      await initdb(pgData, clusterTemplate ?? pgliteClusterTemplate());
    const db = await PGlite.create({ dataDir: pgData, ...(await options()) });
    return {
      db,
      close: async () => {
        try {
          if (!db.closed) await db.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * A first start copies the build's fresh cluster (~40 MB of files, ~0.2 s of CPU; decision 0042). Without
 * one (the sources run through tsx, no build) it creates the cluster in another process: PGlite's initdb
 * runs a second PostgreSQL and copies the cluster through a tarball in memory, ~3.5 s of CPU and ~600 MB
 * this process would keep (decision 0020). Either way it is made beside `pgData` and renamed into place,
 * so an interrupted first start leaves no half-made cluster that the next one would take for a database.
 * A `pgData` that holds files but no cluster is left alone.
 */
async function initdb(pgData: string, clusterTemplate: string): Promise<void> {
  const building = `${pgData}.initdb`;
  await rm(building, { recursive: true, force: true });
  if (existsSync(join(clusterTemplate, 'PG_VERSION')))
    await cp(clusterTemplate, building, { recursive: true });
  else await initdbInChildProcess(building);
  try {
    await rename(building, pgData);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST')
      throw new Error(`${pgData} holds files but no database (no PG_VERSION); move it away to start afresh`);
    throw error;
  }
}
