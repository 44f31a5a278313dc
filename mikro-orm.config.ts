import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import type { Dialect } from 'kysely';
import { systemMigrations } from './src/adapters/persistence/mikro-orm/migrations/system-migrations.ts';

export type DatagateOrmSettings = {
  /** A PostgreSQL server by URL, or an embedded database through its Kysely dialect. */
  connection: { clientUrl: string } | { dialect: Dialect };
  /** PostgreSQL schema holding the system tables; the connection's default (`public`) when absent. */
  schema?: string;
  pool?: { min: number; max: number };
  debug?: boolean;
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
          driverOptions: { application_name: 'datagate' },
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
