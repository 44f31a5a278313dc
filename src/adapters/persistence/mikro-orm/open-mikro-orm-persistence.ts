import { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import { datagateOrmOptions, type ServerTimeouts } from '../../../../mikro-orm.config.ts';
import { CLOSE_PART_MS, type ClosingPart, closeInTurn, warnOnStderr } from '../close-in-turn.ts';
import { unavailableError } from '../database-unreachable.ts';
import type { Persistence } from '../persistence.ts';
import { openReplicaRouting } from '../postgres/open-replica-routing.ts';
import {
  createItemEventFeed,
  createPostgresCollections,
  type ItemEventWakeUps,
  itemEventReaderDatabase,
  PgliteItemEventWakeUps,
  type PostgresCollections,
  PostgresItemEventWakeUps,
  userTablesDatabase,
} from '../postgres/postgres-collections.ts';
import { PostgresLargeObjectStorage } from '../postgres/postgres-large-object-storage.ts';
import { refuseConnectionsAfterEnd } from '../refuse-connections-after-end.ts';
import { type StatementTimeouts, statementTimeoutPerWork } from '../statement-timeout-per-work.ts';
import { openEmbeddedPostgres } from './embedded-postgres.ts';
import { type MigrationLock, processMigrationLock, serverMigrationLock } from './migration-lock.ts';
import { MikroOrmDatabaseHealth } from './mikro-orm-database-health.ts';
import { MikroOrmPermissionRepository } from './mikro-orm-permission-repository.ts';
import { MikroOrmRefreshTokenRepository } from './mikro-orm-refresh-token-repository.ts';
import { MikroOrmRoleRepository } from './mikro-orm-role-repository.ts';
import { MikroOrmUnfinishedUploads } from './mikro-orm-unfinished-uploads.ts';
import { MikroOrmUserRepository } from './mikro-orm-user-repository.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { PostgresChangeFeed } from './postgres-change-feed.ts';
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
  /**
   * The items' change log (`realtime.*`, docs/api.md §12): kept this long; false records none. Unset:
   * recorded, kept 5 minutes.
   */
  itemEvents?: { replayWindowMs: number; pollMs?: number } | false;
  /**
   * Connection pool of the server connection; PGlite has one connection. A request that finds every
   * connection busy waits up to `timeouts.connectMs`, then gets SERVICE_BUSY.
   */
  pool?: { min: number; max: number };
  /**
   * Connect and statement timeouts of the server connection; unset: none. `queryMs` bounds the statements
   * sent outside a request.
   */
  timeouts?: ServerTimeouts;
  /**
   * `statement_timeout` of a request's statements by kind of request (server only; PGlite, one connection
   * in this process, has none).
   */
  statementTimeouts?: StatementTimeouts;
  /** Logs every SQL statement. */
  debug?: boolean;
  /** Hot standbys of `url` that serve item reads (server only); see ReplicaRoutingItemStore. */
  replicas?: { urls: ReadonlyArray<string>; maxLagMs: number; probeIntervalMs?: number };
  /** Told what did not close in time at `close()` (server only); Node's warning on stderr by default. */
  warn?: (message: string) => void;
};

/**
 * The system store, plus the ORM it runs on: other adapters on the same database (the item store) share its
 * pool, and tests reach the tables through it.
 */
export type MikroOrmPersistence = Persistence & { readonly orm: MikroORM };

/**
 * Without configured timeouts, how long the connections of their own (the health check's, the change
 * feed's, the replicas') may take to open.
 */
const DEFAULT_CONNECT_MS = 2000;

/** `realtime.replayWindow`'s default. */
const DEFAULT_REPLAY_WINDOW_MS = 5 * 60 * 1000;

/** Connections per replica without a configured pool: pg's own default. */
const DEFAULT_REPLICA_POOL = 10;

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
    const { url, timeouts, statementTimeouts } = options;
    const connectMs = timeouts?.connectMs ?? DEFAULT_CONNECT_MS;
    const longestStatementMs = Math.max(0, ...Object.values(statementTimeouts ?? {}));
    const perWorkTimeouts =
      timeouts && statementTimeouts ? { statementTimeouts, outsideMs: timeouts.queryMs } : undefined;
    let servingPool: pg.Pool | undefined;
    const orm = await MikroORM.init(
      datagateOrmOptions({
        ...settings,
        timeouts: timeouts && { ...timeouts, longestStatementMs },
        connection: { clientUrl: url },
        onPoolCreated: (pool) => {
          servingPool = pool;
          refuseConnectionsAfterEnd(pool);
          if (perWorkTimeouts)
            statementTimeoutPerWork(pool, perWorkTimeouts.statementTimeouts, perWorkTimeouts.outsideMs);
        },
      }),
    );
    const health = new MikroOrmDatabaseHealth(
      orm,
      undefined,
      { url, connectMs, servingPool: () => servingPool },
      options.schema,
    );
    const lock = serverMigrationLock(url, timeouts?.connectMs);
    const collections = createPostgresCollections(orm, {
      ...eventsOptions(options),
      readPool: () => servingPool,
    });
    const changes = new PostgresChangeFeed({
      url,
      connectMs,
      schema: collections.catalog.schema,
      notify: async (channel, payload) => {
        await orm.em
          .fork()
          .getKysely()
          .executeQuery(CompiledQuery.raw('select pg_notify($1, $2)', [channel, payload]));
      },
    });
    const wakeUps = new PostgresItemEventWakeUps({ url, connectMs });
    const reader = itemEventReaderDatabase({ url, connectMs, queryMs: timeouts?.queryMs });
    const closeParts = (first: ClosingPart[]) =>
      closeInTurn(
        [
          ...first,
          { name: 'the change feed', close: () => changes.close() },
          { name: "the change log's wake-ups", close: () => wakeUps.close() },
          { name: "the change log's reader", close: () => reader.destroy() },
          { name: 'the connection pool', close: () => orm.close() },
          { name: "the health check's connection", close: () => health.close() },
        ],
        { limitMs: CLOSE_PART_MS, warn: options.warn ?? warnOnStderr },
      );
    const persistence = assemble(
      orm,
      collections,
      health,
      options,
      lock,
      () => closeParts([]),
      { wakeUps, reader },
      () => servingPool,
    );
    const poolUsage = () =>
      servingPool && {
        size: servingPool.totalCount,
        max: servingPool.options.max,
        inUse: servingPool.totalCount - servingPool.idleCount,
        waiting: servingPool.waitingCount,
      };
    if (!options.replicas?.urls.length) return { ...persistence, changes, poolUsage };
    const replicas = openReplicaRouting(persistence.items, userTablesDatabase(orm), options.schema, {
      ...options.replicas,
      primaryUrl: url,
      poolSize: options.pool?.max ?? DEFAULT_REPLICA_POOL,
      connectMs,
      ...(timeouts ? { queryMs: timeouts.queryMs, longestStatementMs } : {}),
      ...(perWorkTimeouts ? { statementTimeouts: perWorkTimeouts.statementTimeouts } : {}),
    });
    return {
      ...persistence,
      changes,
      poolUsage,
      items: replicas.store,
      health: { check: () => health.check(), replicas: () => replicas.health() },
      close: () => closeParts([{ name: 'the replicas', close: () => replicas.close() }]),
    };
  }
  const embedded = await openEmbeddedPostgres(options.dataDir);
  try {
    const dialect = new PGliteDialect(embedded.db);
    const orm = await MikroORM.init(datagateOrmOptions({ ...settings, connection: { dialect } }));
    const wakeUps = new PgliteItemEventWakeUps(embedded.db, async (statement) => {
      await userTablesDatabase(orm).executeQuery(CompiledQuery.raw(statement));
    });
    const persistence = assemble(
      orm,
      createPostgresCollections(orm, eventsOptions(options)),
      new MikroOrmDatabaseHealth(orm, undefined, undefined, options.schema),
      options,
      processMigrationLock(),
      async () => {
        // Not bounded: the embedded database writes its files as it closes, and a process leaving
        // before that would leave them half written.
        try {
          await orm.close();
        } finally {
          await embedded.close();
        }
      },
      { wakeUps },
    );
    return { ...persistence, poolUsage: () => dialect.usage() };
  } catch (error) {
    await embedded.close();
    throw error;
  }
}

function assemble(
  orm: MikroORM,
  collections: PostgresCollections,
  health: MikroOrmDatabaseHealth,
  options: MikroOrmPersistenceOptions,
  migrationLock: MigrationLock,
  close: () => Promise<void>,
  log: { wakeUps: ItemEventWakeUps; reader?: Kysely<unknown> },
  servingPool: () => pg.Pool | undefined = () => undefined,
): MikroOrmPersistence {
  const database = new SystemDatabase(orm, options.schema, servingPool);
  const itemEvents =
    options.itemEvents === false
      ? undefined
      : createItemEventFeed(orm, collections.catalog, {
          replayWindowMs: options.itemEvents?.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS,
          ...log,
          ...(options.itemEvents?.pollMs === undefined ? {} : { pollMs: options.itemEvents.pollMs }),
          ...(options.schema ? { systemSchema: options.schema } : {}),
        });
  return {
    ...(itemEvents ? { itemEvents } : {}),
    watch: collections.watch,
    orm,
    users: new MikroOrmUserRepository(database),
    roles: new MikroOrmRoleRepository(database),
    permissions: new MikroOrmPermissionRepository(database),
    refreshTokens: new MikroOrmRefreshTokenRepository(database),
    health,
    schema: collections.catalog,
    schemaEditor: collections.editor,
    items: collections.store,
    activity: collections.activity,
    unfinishedUploads: new MikroOrmUnfinishedUploads(database),
    largeObjects: new PostgresLargeObjectStorage(userTablesDatabase(orm), {
      ...(options.schema ? { systemSchema: options.schema } : {}),
    }),
    // Applies what is pending, so it is safe on every start. The migrator's errors are MikroORM's own,
    // untouched by the repositories' translation.
    migrate: (setUp) =>
      migrationLock(async () => {
        await orm.migrator.up();
        await setUp?.();
      }).catch((error: unknown) => {
        throw unavailableError(error) ?? error;
      }),
    close: async () => {
      await itemEvents?.close();
      await close();
    },
  };
}

/**
 * Whether the item writers record the change log, and where its table is (which watching needs too); they
 * always record activity (each collection's own setting decides), in the system tables' schema.
 */
function eventsOptions(options: MikroOrmPersistenceOptions): {
  recordEvents?: { systemSchema?: string };
  recordActivity: { systemSchema?: string };
  systemSchema?: string;
} {
  const where = options.schema ? { systemSchema: options.schema } : {};
  const always = { ...where, recordActivity: where };
  return options.itemEvents === false ? always : { ...always, recordEvents: where };
}
