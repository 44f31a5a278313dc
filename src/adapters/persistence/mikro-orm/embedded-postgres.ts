import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { DataDirLock } from './data-dir-lock.ts';

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

/** Starts PGlite in `<dataDir>/pglite`, holding the data directory's lock while it runs. */
export async function openEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  if (dataDir === IN_MEMORY) {
    const db = await PGlite.create({ dataDir: IN_MEMORY, parsers: PARSERS });
    return { db, close: () => db.close() };
  }
  // The lock also creates the directory; PGlite needs the parent of its own directory to exist.
  const lock = await DataDirLock.acquire(dataDir);
  try {
    const db = await PGlite.create({ dataDir: join(dataDir, 'pglite'), parsers: PARSERS });
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
