import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { IN_MEMORY } from '../../src/adapters/persistence/mikro-orm/embedded-postgres.ts';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';

/**
 * One storage backend as the tests see it. Each target object is one lease on its backend: use it for one
 * suite and call `dispose()` in that suite's `after` hook.
 */
export type PersistenceTarget<P extends Persistence = Persistence> = {
  readonly name: string;
  /**
   * An empty, migrated store. Database targets hand out the same shared instance each time, emptied:
   * never close it yourself.
   */
  fresh(): Promise<P>;
  /** Ends the lease; the shared database closes (and a server database is dropped) with the last one. */
  dispose(): Promise<void>;
};

/**
 * Every backend to run a suite against: memory, PGlite in memory, and PostgreSQL when TEST_DATABASE_URL
 * is set (e.g. `postgresql://postgres@127.0.0.1:5432/test`). Call once per suite, when the test file loads.
 */
export function persistenceTargets(): PersistenceTarget[] {
  return [memoryTarget(), ...mikroOrmTargets()];
}

/** The database backends only, for tests of the MikroORM adapter itself. */
export function mikroOrmTargets(): PersistenceTarget<MikroOrmPersistence>[] {
  const targets = [pgliteTarget()];
  if (process.env.TEST_DATABASE_URL) targets.push(sharedTarget('postgresql', server));
  return targets;
}

/** The process's shared in-memory PGlite alone, for behaviour that depends on its single connection. */
export function pgliteTarget(): PersistenceTarget<MikroOrmPersistence> {
  return sharedTarget('pglite', embedded);
}

function memoryTarget(): PersistenceTarget {
  return { name: 'memory', fresh: async () => createInMemoryPersistence(), dispose: async () => {} };
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
    return openMikroOrmPersistence({ url: serverUrl(serverDatabaseName), dataDir: tmpdir() });
  },
  close: async (persistence) => {
    try {
      await persistence.close();
    } finally {
      await administer(`drop database if exists "${serverDatabaseName}" with (force)`);
    }
  },
});

function sharedTarget(name: string, shared: Shared): PersistenceTarget<MikroOrmPersistence> {
  shared.lease();
  let disposed = false;
  return {
    name,
    fresh: async () => {
      const persistence = await shared.get();
      await truncateSystemTables(persistence);
      return persistence;
    },
    dispose: async () => {
      if (disposed) return;
      disposed = true;
      await shared.release();
    },
  };
}

async function truncateSystemTables(persistence: MikroOrmPersistence) {
  await sql`truncate table datagate_permissions, datagate_sessions, datagate_users, datagate_roles`.execute(
    persistence.orm.em.fork().getKysely(),
  );
}

function serverUrl(database: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? '');
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs a statement on the database TEST_DATABASE_URL names (create/drop database cannot run inside it). */
async function administer(statement: string) {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A shared database handed to one app: the app may close it when done, but the target's lease is what
 * really closes it, so `close()` does nothing here.
 */
export function borrowed(persistence: Persistence): Persistence {
  return Object.assign(Object.create(persistence) as Persistence, { close: async () => {} });
}
