import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { AppConfig } from './adapters/config/config-schema.ts';
import type { HttpApp } from './adapters/http/create-http-app.ts';
import { createGracefulServer } from './adapters/http/graceful-server.ts';
import { unreachableReason } from './adapters/persistence/database-unreachable.ts';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from './adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { Readiness } from './application/server/readiness.ts';
import { StartUp } from './application/server/start-up.ts';
import { BootstrapHandler, type BootstrapResult } from './application/setup/bootstrap.ts';
import { buildContainer, TYPES } from './container.ts';

export type RunningServer = {
  url: string;
  /**
   * Resolves once the database is migrated and the first admin exists (at once, unless the database was
   * unreachable at start); rejects if that work fails for another reason, or the server is closed first.
   */
  ready: Promise<BootstrapResult>;
  logger: Logger;
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
  });
}

/**
 * Opens the database, migrates, bootstraps the first admin if needed, and listens. A database that cannot
 * be reached does not stop the server: it listens anyway, answers 503 (and says why on /server/health),
 * and retries the start-up work every `database.retryInterval` until the database answers.
 */
export async function startServer(config: AppConfig): Promise<RunningServer> {
  const persistence = await openPersistence(config);
  const readiness = Readiness.starting();
  const container = buildContainer(config, persistence, readiness);
  const logger = container.get<Logger>(TYPES.Logger);
  const startUp = new StartUp(
    async () => {
      await persistence.migrate();
      await persistence.schema.refresh();
      return container.get(BootstrapHandler).execute(null, {
        adminEmail: config.bootstrap.adminEmail,
        adminPassword: config.bootstrap.adminPassword,
      });
    },
    readiness,
    {
      retryIntervalMs: config.database.retryInterval,
      describe: (error) => unreachableReason(error) ?? 'database unavailable',
      onFailure: (reason, error) =>
        logger.warn({ err: error, reason }, 'database unavailable; start-up will be retried'),
      onReady: (failures) => {
        if (failures > 0) logger.info({ failures }, 'database available; start-up done');
      },
    },
  );
  const http = createGracefulServer(container.get<HttpApp>(TYPES.HttpApp).callback());
  try {
    await startUp.start();
    await listen(http.server, config.http.port, config.http.host);
  } catch (error) {
    startUp.stop();
    await persistence.close();
    throw error;
  }
  const { port } = http.server.address() as AddressInfo;
  return {
    url: `http://${formatHost(config.http.host)}:${port}`,
    ready: startUp.done,
    logger,
    close: async () => {
      startUp.stop();
      await http.drain(config.http.shutdownTimeout);
      await persistence.close();
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} on ${host} is already in use`) : error);
    });
    server.listen(port, host, () => resolve());
  });
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
