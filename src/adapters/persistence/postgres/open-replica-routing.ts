import { Kysely, PostgresDialect } from 'kysely';
import type { ReplicaHealth } from '../../../application/ports/database-health.ts';
import type { ItemStore } from '../../../application/ports/item-store.ts';
import { type StatementTimeouts, statementTimeoutPerWork } from '../statement-timeout-per-work.ts';
import { PREPARED_PER_CONNECTION } from './postgres-collections.ts';
import { PostgresItemStore } from './postgres-item-store.ts';
import { quietPool } from './quiet-pool.ts';
import { ReplicaRoutingItemStore } from './replica-routing-item-store.ts';
import { ReplicaSet } from './replica-set.ts';

export type ReplicaRoutingSettings = {
  /** The primary, for the probe's own connection. */
  primaryUrl: string;
  /** The hot standbys' URLs (`database.replicas`). */
  urls: ReadonlyArray<string>;
  /** `database.replicaMaxLagMs`. */
  maxLagMs: number;
  /** Connections per replica, at most: as many as the primary's serving pool. */
  poolSize: number;
  connectMs: number;
  /** `statement_timeout` of a new connection and of work outside a request; unset: none. */
  queryMs?: number;
  /** The longest `statement_timeout` a request may set: the driver's own clock must not cut it first. */
  longestStatementMs?: number;
  /** The statement timeout per kind of request, set as a replica connection is taken (with `queryMs`). */
  statementTimeouts?: StatementTimeouts;
  /** How often the replicas are probed; about a second unless a test wants it sooner. */
  probeIntervalMs?: number;
};

export type ReplicaRouting = {
  readonly store: ReplicaRoutingItemStore;
  health(): ReplicaHealth[];
  close(): Promise<void>;
};

const DEFAULT_PROBE_INTERVAL_MS = 1000;

/** Callers remembered as having just written: a few megabytes at most. */
const MAX_WRITERS = 100_000;

/** A probe waits this long at most, so a replica gone silent is out of service within a few seconds. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Puts read replicas behind the primary's item store: one pool per replica (connected lazily, so a replica
 * down at start joins once it answers) and the probe that keeps their health.
 */
export function openReplicaRouting(
  primary: ItemStore,
  primaryDb: Kysely<unknown>,
  schema: string | undefined,
  settings: ReplicaRoutingSettings,
): ReplicaRouting {
  const probeIntervalMs = settings.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  const pools = settings.urls.map((url) => {
    const pool = quietPool({
      connectionString: url,
      application_name: 'datagate replica',
      max: settings.poolSize,
      connectionTimeoutMillis: settings.connectMs,
      ...(settings.queryMs === undefined
        ? {}
        : {
            statement_timeout: settings.queryMs,
            query_timeout: Math.max(settings.queryMs, settings.longestStatementMs ?? 0) + settings.connectMs,
          }),
      keepAlive: true,
    });
    if (settings.statementTimeouts && settings.queryMs !== undefined)
      statementTimeoutPerWork(pool, settings.statementTimeouts, settings.queryMs);
    return pool;
  });
  const dbs = pools.map((pool) => new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) }));
  const probePool = (url: string) =>
    quietPool({
      connectionString: url,
      application_name: 'datagate replica probe',
      max: 1,
      idleTimeoutMillis: 0,
      connectionTimeoutMillis: Math.min(settings.connectMs, PROBE_TIMEOUT_MS),
      statement_timeout: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
      keepAlive: true,
    });
  const now = () => performance.now();
  const replicaSet = new ReplicaSet(probePool(settings.primaryUrl), settings.urls.map(probePool), {
    maxLagMs: settings.maxLagMs,
    probeIntervalMs,
    now,
  });
  const store = new ReplicaRoutingItemStore(
    primary,
    primaryDb,
    dbs.map(
      (db, index) =>
        new PostgresItemStore(db, schema, {
          preparedPerConnection: PREPARED_PER_CONNECTION,
          holdsSnapshots: true,
          readPool: () => pools[index],
        }),
    ),
    replicaSet,
    { readYourWritesMs: settings.maxLagMs + 2 * probeIntervalMs, maxWriters: MAX_WRITERS, now },
  );
  replicaSet.start();
  return {
    store,
    health: () => replicaSet.health(),
    close: async () => {
      await replicaSet.close();
      await Promise.all(dbs.map((db) => db.destroy()));
    },
  };
}
