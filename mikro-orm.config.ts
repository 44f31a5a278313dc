import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import type { Dialect } from 'kysely';
import type pg from 'pg';
import { systemMigrations } from './src/adapters/persistence/mikro-orm/migrations/system-migrations.ts';

export type DatagateOrmSettings = {
  /** A PostgreSQL server by URL, or an embedded database through its Kysely dialect. */
  connection: { clientUrl: string } | { dialect: Dialect };
  /** PostgreSQL schema holding the system tables; the connection's default (`public`) when absent. */
  schema?: string;
  pool?: { min: number; max: number };
  /** Bounds of a server connection (PGlite has no network to wait for); unset: pg's, which wait forever. */
  timeouts?: ServerTimeouts;
  /**
   * Handed the server pool once it exists, to read how busy it is and to set what each connection it
   * hands out must carry (the statement timeout of the work asking).
   */
  onPoolCreated?: (pool: pg.Pool) => void;
  debug?: boolean;
};

export type ServerTimeouts = {
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** PostgreSQL's `statement_timeout` of a new connection: the bound outside requests. */
  queryMs: number;
  /** The longest `statement_timeout` a request may set on a connection; `queryMs` when unset. */
  longestStatementMs?: number;
};

/**
 * MikroORM options of the persistence adapter. Built in code for the adapter only: MikroORM's CLI, file
 * discovery and snapshots need Node 22 APIs, so entities and migrations are listed explicitly.
 */
export function datagateOrmOptions(settings: DatagateOrmSettings): Options {
  const connection =
    'clientUrl' in settings.connection
      ? {
          clientUrl: settings.connection.clientUrl,
          driverOptions: {
            application_name: 'datagate',
            ...timeoutOptions(settings.timeouts),
            ...(settings.onPoolCreated ? { onPoolCreated: settings.onPoolCreated } : {}),
          },
        }
      : // MikroORM would otherwise open a second client on the dialect to create the database and, closing
        // it, close the embedded database with it.
        { dbName: 'postgres', driverOptions: settings.connection.dialect };
  return defineConfig({
    ...connection,
    // The database must exist: creating one needs privileges the application should not hold.
    ensureDatabase: false,
    // The repositories speak SQL through Kysely; MikroORM provides the pool, the dialect and the migrator.
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      migrationsList: systemMigrations,
      snapshot: false,
      tableName: 'datagate_migrations',
      transactional: true,
      allOrNothing: true,
      // Progress lines go to the console, outside the application's log; `debug` brings them back.
      silent: !settings.debug,
      ...(settings.schema ? { schema: settings.schema } : {}),
    },
    ...(settings.schema ? { schema: settings.schema } : {}),
    ...(settings.pool ? { pool: settings.pool } : {}),
    debug: settings.debug ?? false,
  });
}

/**
 * pg.Pool options. The pool connects lazily, so opening needs no database and a server that comes back
 * is used again without a restart. `statement_timeout` is enforced by the server and reported as an
 * error; `query_timeout` (the driver's own clock, a connect timeout later) only catches a network that
 * went silent, where the server's answer can never arrive.
 */
function timeoutOptions(timeouts: ServerTimeouts | undefined) {
  if (!timeouts) return {};
  return {
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.queryMs,
    query_timeout: Math.max(timeouts.queryMs, timeouts.longestStatementMs ?? 0) + timeouts.connectMs,
    keepAlive: true,
  };
}
