import pg from 'pg';

/** Runs `work` while no other datagate migrator runs against the same database. */
export type MigrationLock = (work: () => Promise<void>) => Promise<void>;

/** Any stable number: only datagate migrators take this advisory lock. */
const MIGRATION_LOCK_KEY = 0x64617461;

/**
 * Instances starting together against one server would all find the same migrations pending and race to
 * create the same tables (the migrator's own bookkeeping table included, which it creates outside any
 * transaction). A session advisory lock makes them migrate one after the other, so the later ones find
 * nothing pending. It is held on a connection of its own: the migrator needs the pool's connections, and a
 * pool of one would otherwise wait for itself. If the process dies, the server drops the lock with the session.
 */
export function serverMigrationLock(url: string, connectTimeoutMs?: number): MigrationLock {
  return async (work) => {
    const client = new pg.Client({
      connectionString: url,
      application_name: 'datagate-migrator',
      connectionTimeoutMillis: connectTimeoutMs,
    });
    // A connection dropped while held is an 'error' event, fatal to the process without a listener;
    // the statement waiting on it fails by itself.
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      try {
        await work();
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      }
    } finally {
      await client.end();
    }
  };
}

/**
 * For an embedded database the data-directory lock already keeps other processes out; this keeps two
 * `migrate()` calls of one process apart.
 */
export function processMigrationLock(): MigrationLock {
  let queue = Promise.resolve();
  return (work) => {
    const run = queue.then(work);
    queue = run.catch(() => {});
    return run;
  };
}
