import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { IN_MEMORY } from '../../src/adapters/persistence/mikro-orm/embedded-postgres.ts';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { type Collections, memoryCollections, postgresCollections } from './collections.ts';
import { administer, postgresSkip, testDatabaseUrl } from './postgres-server.ts';

/**
 * One backend as a suite sees it, and one lease on it: use it for one suite and call `dispose()` in that
 * suite's `after` hook. `T` is what each case works on: the persistence, or the collection-side ports.
 */
export type Target<T> = {
  readonly name: string;
  /** Why the backend cannot run here; a `skippableSuite` given it counts its cases as skipped. */
  readonly skip?: string;
  /**
   * An empty, migrated store. Database targets hand out the same shared instance each time, emptied:
   * never close it yourself.
   */
  fresh(): Promise<T>;
  /** Ends the lease; the shared database closes (and a server database is dropped) with the last one. */
  dispose(): Promise<void>;
};

export type PersistenceTarget<P extends Persistence = Persistence> = Target<P>;

/** The catalog, editor and item store of a backend, in a schema of their own (see `TEST_SCHEMA`). */
export type CollectionsTarget = Target<Collections>;

/** One entry of the registry: each call takes a new lease, so call them when the test file loads. */
export type Backend<P extends Persistence = Persistence> = {
  readonly name: string;
  readonly skip?: string;
  persistence(): PersistenceTarget<P>;
  collections(): CollectionsTarget;
};

/**
 * The registry of backends every contract runs against: memory, PGlite in memory, and PostgreSQL when
 * TEST_DATABASE_URL is set (e.g. `postgresql://postgres@127.0.0.1:5432/test`); without it the PostgreSQL
 * backend is still listed, marked `skip`, so its cases are counted as skipped rather than forgotten.
 */
export function backends(): Backend[] {
  return [memoryBackend, ...databaseBackends()];
}

/** The database backends only (PGlite, PostgreSQL), for tests of the PostgreSQL adapters themselves. */
export function databaseBackends(): Backend<MikroOrmPersistence>[] {
  return [pgliteBackend, postgresBackend];
}

/** The process's shared in-memory PGlite alone, for behaviour that depends on its single connection. */
export function pgliteTarget(): PersistenceTarget<MikroOrmPersistence> {
  return pgliteBackend.persistence();
}

const memoryBackend: Backend = {
  name: 'memory',
  persistence: () => ({
    name: 'memory',
    fresh: async () => createInMemoryPersistence(),
    dispose: async () => {},
  }),
  collections: () => ({ name: 'memory', fresh: async () => memoryCollections(), dispose: async () => {} }),
};

function sharedBackend(name: string, shared: Shared): Backend<MikroOrmPersistence> {
  return {
    name,
    persistence: () => sharedTarget(name, shared),
    collections: () => {
      const target = sharedTarget(name, shared);
      return { name, fresh: async () => postgresCollections(await target.fresh()), dispose: target.dispose };
    },
  };
}

/** Listed without a database behind it: its suites only count their cases as skipped. */
function skippedBackend(name: string, skip: string): Backend<MikroOrmPersistence> {
  const target = <T>(): Target<T> => ({
    name,
    skip,
    fresh: () => Promise.reject(new Error(`${name} is skipped: ${skip}`)),
    dispose: async () => {},
  });
  return { name, skip, persistence: target, collections: target };
}

type SharedDatabase = {
  open(): Promise<MikroOrmPersistence>;
  close(persistence: MikroOrmPersistence): Promise<void>;
};

/**
 * A PGlite instance costs ~600 MB and ~2 s to start, so one per test process, opened on first use and
 * closed when the last lease ends. Leases are taken when targets are created, that is while uvu imports
 * the test files and before any suite runs, so the count cannot drop to zero between two suites.
 */
class Shared {
  private leases = 0;
  private opening: Promise<MikroOrmPersistence> | null = null;

  constructor(private readonly database: SharedDatabase) {}

  lease() {
    this.leases++;
  }

  async get(): Promise<MikroOrmPersistence> {
    this.opening ??= this.database.open().then(async (persistence) => {
      await persistence.migrate();
      return persistence;
    });
    return this.opening;
  }

  async release() {
    this.leases--;
    if (this.leases > 0 || !this.opening) return;
    const opening = this.opening;
    this.opening = null;
    await this.database.close(await opening);
  }
}

const embedded = new Shared({
  open: () => openMikroOrmPersistence({ dataDir: IN_MEMORY }),
  close: (persistence) => persistence.close(),
});

/** A database of its own per test process, so parallel runs and leftovers of crashed runs never collide. */
const serverDatabaseName = `datagate_test_${process.pid}_${Date.now().toString(36)}`;

const server = new Shared({
  open: async () => {
    await administer(`create database "${serverDatabaseName}"`);
    return openMikroOrmPersistence({ url: testDatabaseUrl(serverDatabaseName), dataDir: tmpdir() });
  },
  close: async (persistence) => {
    try {
      await persistence.close();
    } finally {
      await administer(`drop database if exists "${serverDatabaseName}" with (force)`);
    }
  },
});

const pgliteBackend = sharedBackend('pglite', embedded);
const postgresBackend = postgresSkip
  ? skippedBackend('postgresql', postgresSkip)
  : sharedBackend('postgresql', server);

function sharedTarget(name: string, shared: Shared): PersistenceTarget<MikroOrmPersistence> {
  shared.lease();
  let disposed = false;
  return {
    name,
    fresh: async () => {
      const persistence = await shared.get();
      await emptySystemTables(persistence);
      return persistence;
    },
    dispose: async () => {
      if (disposed) return;
      disposed = true;
      await shared.release();
    },
  };
}

/**
 * Children before the rows they reference. `delete`, not `truncate`: the tables hold a few rows, and a
 * truncate makes new files for each table (about 200 ms for these on a PostgreSQL server, 25 ms on
 * PGlite, against 2 ms and 1 ms), on every `fresh()` of every suite.
 */
const SYSTEM_TABLES = [
  'datagate_revisions',
  'datagate_activity',
  'datagate_permissions',
  'datagate_sessions',
  'datagate_unfinished_uploads',
  'datagate_files',
  'datagate_users',
  'datagate_roles',
];

async function emptySystemTables(persistence: MikroOrmPersistence) {
  const db = persistence.orm.em.fork().getKysely();
  for (const table of SYSTEM_TABLES) await sql`delete from ${sql.table(table)}`.execute(db);
}

/**
 * A shared database handed to one app: the app may close it when done, but the target's lease is what
 * really closes it, so `close()` does nothing here.
 */
export function borrowed(persistence: Persistence): Persistence {
  return Object.assign(Object.create(persistence) as Persistence, { close: async () => {} });
}
