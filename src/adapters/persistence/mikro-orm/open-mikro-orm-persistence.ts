import { MikroORM } from '@mikro-orm/postgresql';
import { datagateOrmOptions, type ServerTimeouts } from '../../../../mikro-orm.config.ts';
import { unavailableError } from '../database-unreachable.ts';
import type { Persistence } from '../persistence.ts';
import { createPostgresCollections } from '../postgres/postgres-collections.ts';
import { openEmbeddedPostgres } from './embedded-postgres.ts';
import { type MigrationLock, processMigrationLock, serverMigrationLock } from './migration-lock.ts';
import { MikroOrmDatabaseHealth } from './mikro-orm-database-health.ts';
import { MikroOrmPermissionRepository } from './mikro-orm-permission-repository.ts';
import { MikroOrmRefreshTokenRepository } from './mikro-orm-refresh-token-repository.ts';
import { MikroOrmRoleRepository } from './mikro-orm-role-repository.ts';
import { MikroOrmUserRepository } from './mikro-orm-user-repository.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { SystemDatabase } from './system-database.ts';

export type MikroOrmPersistenceOptions = {
  /** PostgreSQL server, e.g. `postgresql://user:pw@host:5432/db`. Without it: embedded PGlite. */
  url?: string;
  /**
   * The instance's data directory; embedded PGlite lives in `<dataDir>/pglite`, guarded by
   * `<dataDir>/datagate.lock`. `memory://` (`IN_MEMORY`) runs PGlite in memory, for tests.
   */
  dataDir: string;
  /** PostgreSQL schema of the system tables; created by `migrate()` when missing. */
  schema?: string;
  /** Connection pool of the server connection; PGlite has one connection. */
  pool?: { min: number; max: number };
  /** Connect and statement timeouts of the server connection; unset: none. */
  timeouts?: ServerTimeouts;
  /** Logs every SQL statement. */
  debug?: boolean;
};

/**
 * The system store, plus the ORM it runs on: other adapters on the same database (the item store) share its
 * pool, and tests reach the tables through it.
 */
export type MikroOrmPersistence = Persistence & { readonly orm: MikroORM };

/**
 * Opens the system store on a PostgreSQL server (`url`) or on embedded PGlite in `dataDir`. A server is
 * connected to on first use, so opening succeeds while it is down; PGlite starts here and its data
 * directory is locked. Call `migrate()` before use and `close()` at shutdown.
 */
export async function openMikroOrmPersistence(
  options: MikroOrmPersistenceOptions,
): Promise<MikroOrmPersistence> {
  const settings = { schema: options.schema, pool: options.pool, debug: options.debug };
  if (options.url) {
    const orm = await MikroORM.init(
      datagateOrmOptions({ ...settings, timeouts: options.timeouts, connection: { clientUrl: options.url } }),
    );
    const lock = serverMigrationLock(options.url, options.timeouts?.connectMs);
    return assemble(orm, options.schema, lock, () => orm.close());
  }
  const embedded = await openEmbeddedPostgres(options.dataDir);
  try {
    const dialect = new PGliteDialect(embedded.db);
    const orm = await MikroORM.init(datagateOrmOptions({ ...settings, connection: { dialect } }));
    return assemble(orm, options.schema, processMigrationLock(), async () => {
      try {
        await orm.close();
      } finally {
        await embedded.close();
      }
    });
  } catch (error) {
    await embedded.close();
    throw error;
  }
}

function assemble(
  orm: MikroORM,
  schema: string | undefined,
  migrationLock: MigrationLock,
  close: () => Promise<void>,
): MikroOrmPersistence {
  const database = new SystemDatabase(orm, schema);
  const collections = createPostgresCollections(orm);
  return {
    orm,
    users: new MikroOrmUserRepository(database),
    roles: new MikroOrmRoleRepository(database),
    permissions: new MikroOrmPermissionRepository(database),
    refreshTokens: new MikroOrmRefreshTokenRepository(database),
    health: new MikroOrmDatabaseHealth(orm),
    schema: collections.catalog,
    schemaEditor: collections.editor,
    items: collections.store,
    // Applies what is pending, so it is safe on every start. The migrator's errors are MikroORM's own,
    // untouched by the repositories' translation.
    migrate: () =>
      migrationLock(async () => {
        await orm.migrator.up();
      }).catch((error: unknown) => {
        throw unavailableError(error) ?? error;
      }),
    close,
  };
}
