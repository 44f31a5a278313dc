import type { MikroORM } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { SchemaEditor } from '../../../application/ports/schema-catalog.ts';
import { PostgresActivityLog } from './postgres-activity-log.ts';
import { PostgresCollectionWatch } from './postgres-collection-watch.ts';

/** The change log's wake-ups, which the persistence builds for the server or the embedded database. */
export { itemEventReaderDatabase } from './item-event-reader-database.ts';
export {
  type ItemEventWakeUps,
  PgliteItemEventWakeUps,
  PostgresItemEventWakeUps,
} from './item-events-wake-ups.ts';

import { PostgresItemEventFeed, type PostgresItemEventFeedOptions } from './postgres-item-event-feed.ts';
import { PostgresItemStore, type PostgresItemStoreOptions } from './postgres-item-store.ts';
import { PostgresSchemaCatalog } from './postgres-schema-catalog.ts';
import { PostgresSchemaEditor } from './postgres-schema-editor.ts';
import { WatchKeepingSchemaEditor } from './watch-keeping-schema-editor.ts';

/** The collection-side adapters on one database. Call `catalog.refresh()` once before serving. */
export type PostgresCollections = {
  readonly catalog: PostgresSchemaCatalog;
  readonly editor: SchemaEditor;
  readonly store: PostgresItemStore;
  /** Watching hand-made writes (the command line refuses to start one while realtime is off). */
  readonly watch: PostgresCollectionWatch;
  /** The activity and revisions, in the system tables' schema (`recordActivity`'s). */
  readonly activity: PostgresActivityLog;
};

/**
 * Builds them on the system store's ORM, sharing its pool (or PGlite connection). `schema` is the
 * PostgreSQL schema whose tables are the collections (docs/api.md §4), `public` unless configured.
 */
export function createPostgresCollections(
  orm: MikroORM,
  options: {
    schema?: string;
    recordEvents?: { systemSchema?: string };
    recordActivity?: { systemSchema?: string };
    systemSchema?: string;
    /**
     * The server pool under `orm`: the item store's prepared reads (PostgresItemStoreOptions) and the statement
     * timeouts per work of the item store and the schema editor run on it.
     */
    readPool?: () => pg.Pool | undefined;
  } = {},
): PostgresCollections {
  const db = userTablesDatabase(orm);
  const catalog = new PostgresSchemaCatalog(db, options.schema);
  const watch = new PostgresCollectionWatch(db, catalog.schema, options.systemSchema);
  return {
    catalog,
    editor: new WatchKeepingSchemaEditor(
      new PostgresSchemaEditor(db, catalog, options.recordActivity?.systemSchema, options.readPool),
      watch,
    ),
    watch,
    activity: new PostgresActivityLog(
      db,
      catalog.schema,
      options.recordActivity?.systemSchema,
      options.readPool,
    ),
    store: new PostgresItemStore(db, options.schema, {
      ...itemStoreOptions(orm),
      ...(options.readPool ? { readPool: options.readPool } : {}),
      ...(options.recordEvents ? { recordEvents: options.recordEvents } : {}),
      ...(options.recordActivity ? { recordActivity: options.recordActivity } : {}),
    }),
  };
}

/**
 * MikroORM's Kysely on the pool, outside any EntityManager transaction (a fork has none). Typed without
 * tables: these adapters only run `sql` templates, over tables known at run time.
 */
export function userTablesDatabase(orm: MikroORM): Kysely<unknown> {
  return orm.em.fork().getKysely();
}

/**
 * Prepared statements per pooled connection of the item reads: a bounded few on a PostgreSQL server
 * (docs/decisions/0018), none on PGlite, whose dialect takes SQL text only (MikroORM keeps an embedded
 * database's Kysely dialect as its driver options).
 */
export const PREPARED_PER_CONNECTION = 64;

export function itemStoreOptions(orm: MikroORM): PostgresItemStoreOptions {
  const driverOptions = orm.config.get('driverOptions') as { createDriver?: unknown } | undefined;
  const embedded = typeof driverOptions?.createDriver === 'function';
  return {
    preparedPerConnection: embedded ? 0 : PREPARED_PER_CONNECTION,
    // An export's snapshot would hold the embedded database's only connection for the whole download.
    holdsSnapshots: !embedded,
  };
}

/**
 * The items' change log on the system store's pool (docs/decisions/0030-item-change-log.md), read there too
 * unless `options.reader` says where; the caller closes it before either.
 */
export function createItemEventFeed(
  orm: MikroORM,
  catalog: PostgresSchemaCatalog,
  options: PostgresItemEventFeedOptions,
): PostgresItemEventFeed {
  return new PostgresItemEventFeed(userTablesDatabase(orm), catalog, options);
}
