import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { logChangeChannel } from './adapters/change-channel-log.ts';
import type { AppConfig } from './adapters/config/config-schema.ts';
import type { HttpApp } from './adapters/http/create-http-app.ts';
import { createGracefulServer } from './adapters/http/graceful-server.ts';
import { listen } from './adapters/listen.ts';
import { reportToPrimary } from './adapters/metrics/cluster-metrics.ts';
import { type MetricsServer, startMetricsServer } from './adapters/metrics/metrics-server.ts';
import { PromClientMetrics } from './adapters/metrics/prom-client-metrics.ts';
import { unreachableReason } from './adapters/persistence/database-unreachable.ts';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from './adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { tuneHeapForServing } from './adapters/serving-heap.ts';
import { ActivityRetention } from './application/activity/activity-retention.ts';
import type { ChangeFeed } from './application/ports/change-feed.ts';
import type { Metrics } from './application/ports/metrics.ts';
import { Readiness } from './application/server/readiness.ts';
import { StartUp } from './application/server/start-up.ts';
import {
  type BootstrapCommand,
  BootstrapHandler,
  type BootstrapResult,
} from './application/setup/bootstrap.ts';
import { ignoredAdminSettings } from './application/setup/ignored-admin-settings.ts';
import { buildContainer, closeServerParts, TYPES } from './container.ts';
import { REALTIME_ATTACH, type RealtimeAttach } from './modules/realtime-http-module.ts';

export type RunningServer = {
  url: string;
  /**
   * Resolves once the database is migrated and the first admin exists (at once, unless the database was
   * unreachable at start); rejects if that work fails for another reason, or the server is closed first.
   */
  ready: Promise<BootstrapResult>;
  logger: Logger;
  /** Where `GET /metrics` is served (`metrics.port`); absent when metrics are off, and in a worker. */
  metricsUrl?: string;
  /** Stops accepting, lets requests in flight finish (at most `http.shutdownTimeout`), closes the database. */
  close(): Promise<void>;
};

/** PGlite when no database URL is configured, so a fresh machine needs no database server. */
export function openPersistence(config: AppConfig): Promise<MikroOrmPersistence> {
  const { url, dataDir, connectTimeout, queryTimeout, poolSize, statementTimeout } = config.database;
  return openMikroOrmPersistence({
    url,
    dataDir,
    pool: { min: 0, max: poolSize },
    timeouts: { connectMs: connectTimeout, queryMs: queryTimeout },
    statementTimeouts: statementTimeout,
    replicas: { urls: config.database.replicas, maxLagMs: config.database.replicaMaxLagMs },
    itemEvents: config.realtime.enabled && {
      replayWindowMs: config.realtime.replayWindow,
      pollMs: config.realtime.pollInterval,
    },
  });
}

export type StartServerOptions = {
  /**
   * This process is one of `http.workers`: its primary has migrated and bootstrapped the database
   * (`prepareDatabase`), so it only loads the schema, and its log lines say which worker wrote them.
   */
  readonly worker?: { readonly id: number };
};

/**
 * Opens the database, migrates, bootstraps the first admin if needed, and listens. A database that cannot
 * be reached does not stop the server: it listens anyway, answers 503 (and says why on /server/health),
 * and retries the start-up work every `database.retryInterval` until the database answers.
 */
export async function startServer(
  config: AppConfig,
  options: StartServerOptions = {},
): Promise<RunningServer> {
  tuneHeapForServing();
  const persistence = await openPersistence(config);
  const readiness = Readiness.starting();
  const container = await buildContainer(config, persistence, readiness);
  if (options.worker) {
    const workerLogger = container
      .get<Logger>(TYPES.Logger)
      .child({ worker: options.worker.id, pid: process.pid });
    container.rebind<Logger>(TYPES.Logger).toConstantValue(workerLogger);
  }
  const logger = container.get<Logger>(TYPES.Logger);
  logChangeChannel(container.get<ChangeFeed>(TYPES.ChangeFeed), logger);
  const work = options.worker
    ? async (): Promise<BootstrapResult> => {
        await persistence.schema.refresh();
        return { created: false };
      }
    : migrateAndBootstrap(config, persistence, container);
  const startUp = retriedStartUp(config, work, readiness, logger);
  const http = createGracefulServer(container.get<HttpApp>(TYPES.HttpApp).callback());
  const detachRealtime = container.get<RealtimeAttach>(REALTIME_ATTACH)(http.server);
  const metrics = container.get<Metrics>(TYPES.Metrics);
  let metricsServer: MetricsServer | undefined;
  const retention = container.get(ActivityRetention);
  try {
    await startUp.start();
    retention.start();
    await listen(http.server, config.http.port, config.http.host);
    if (metrics instanceof PromClientMetrics) {
      // A worker's metrics are served by its primary, summed with the other workers'.
      if (options.worker) reportToPrimary(metrics);
      else metricsServer = await serveMetrics(config, () => metrics.exposition());
    }
  } catch (error) {
    startUp.stop();
    retention.stop();
    detachRealtime();
    if (http.server.listening) await http.drain(0);
    try {
      await closeServerParts(container);
    } finally {
      await persistence.close();
    }
    throw error;
  }
  const { port } = http.server.address() as AddressInfo;
  return {
    url: serverUrl(config.http.host, port),
    ...(metricsServer ? { metricsUrl: serverUrl(config.metrics.host, metricsServer.port) } : {}),
    ready: startUp.done,
    logger,
    close: async () => {
      startUp.stop();
      retention.stop();
      detachRealtime();
      await metricsServer?.close();
      await http.drain(config.http.shutdownTimeout);
      try {
        await closeServerParts(container);
      } finally {
        await persistence.close();
      }
    },
  };
}

/** `GET /metrics` on `metrics.host`:`metrics.port`, when that port is set. */
export function serveMetrics(
  config: AppConfig,
  exposition: () => Promise<string>,
): Promise<MetricsServer | undefined> {
  const { port, host } = config.metrics;
  return port === undefined ? Promise.resolve(undefined) : startMetricsServer(exposition, { host, port });
}

/** The start-up work of the primary of `http.workers`, done before it forks; its database is closed after. */
export type DatabasePreparation = {
  readonly logger: Logger;
  /** Resolves once the database is migrated and has an admin; retried while the database cannot be reached. */
  readonly done: Promise<BootstrapResult>;
  /** Gives up (SIGTERM before the database ever answered): `done` rejects. */
  cancel(): void;
};

/**
 * Migrates and bootstraps once, for workers that would otherwise race to do it: two migrators creating
 * the same table, or two first admins.
 */
export async function prepareDatabase(config: AppConfig): Promise<DatabasePreparation> {
  const persistence = await openPersistence(config);
  const readiness = Readiness.starting();
  const container = await buildContainer(config, persistence, readiness);
  const logger = container.get<Logger>(TYPES.Logger);
  const startUp = retriedStartUp(
    config,
    migrateAndBootstrap(config, persistence, container),
    readiness,
    logger,
  );
  const done = (async () => {
    try {
      await startUp.start();
      return await startUp.done;
    } finally {
      await persistence.close();
    }
  })();
  return { logger, done, cancel: () => startUp.stop() };
}

function migrateAndBootstrap(
  config: AppConfig,
  persistence: MikroOrmPersistence,
  container: Container,
): () => Promise<BootstrapResult> {
  return async () => {
    const result = await migratedAndBootstrapped(persistence, container, config.bootstrap);
    const ignored = result.created ? null : ignoredAdminSettings(config.bootstrap);
    if (ignored) container.get<Logger>(TYPES.Logger).warn(ignored);
    return result;
  };
}

/**
 * Migrates, then creates the first admin if no admin exists, both under the migration lock: of the
 * processes starting together on an empty database (instances, `datagate bootstrap`), one creates it and
 * the others find it.
 */
export async function migratedAndBootstrapped(
  persistence: MikroOrmPersistence,
  container: Container,
  command: BootstrapCommand,
): Promise<BootstrapResult> {
  let result: BootstrapResult = { created: false };
  await persistence.migrate(async () => {
    await persistence.schema.refresh();
    result = await container.get(BootstrapHandler).execute(null, command);
  });
  return result;
}

function retriedStartUp(
  config: AppConfig,
  work: () => Promise<BootstrapResult>,
  readiness: Readiness,
  logger: Logger,
): StartUp<BootstrapResult> {
  return new StartUp(work, readiness, {
    retryIntervalMs: config.database.retryInterval,
    describe: (error) => unreachableReason(error) ?? 'database unavailable',
    onFailure: (reason, error) =>
      logger.warn({ err: error, reason }, 'database unavailable; start-up will be retried'),
    onReady: (failures) => {
      if (failures > 0) logger.info({ failures }, 'database available; start-up done');
    },
  });
}

export function serverUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
