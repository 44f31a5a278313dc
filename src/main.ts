import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { AppConfig } from './adapters/config/config-schema.ts';
import type { HttpApp } from './adapters/http/create-http-app.ts';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from './adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { BootstrapHandler, type BootstrapResult } from './application/setup/bootstrap.ts';
import { buildContainer, TYPES } from './container.ts';

export type RunningServer = {
  url: string;
  bootstrap: BootstrapResult;
  logger: Logger;
  close(): Promise<void>;
};

/** PGlite when no database URL is configured, so a fresh machine needs no database server. */
export function openPersistence(config: AppConfig): Promise<MikroOrmPersistence> {
  return openMikroOrmPersistence({ url: config.database.url, dataDir: config.database.dataDir });
}

/** Opens the database, migrates, bootstraps the first admin if needed, and listens. */
export async function startServer(config: AppConfig): Promise<RunningServer> {
  const persistence = await openPersistence(config);
  try {
    await persistence.migrate();
    await persistence.schema.refresh();
    const container = buildContainer(config, persistence);
    const bootstrap = await container.get(BootstrapHandler).execute({
      adminEmail: config.bootstrap.adminEmail,
      adminPassword: config.bootstrap.adminPassword,
    });
    const app = container.get<HttpApp>(TYPES.HttpApp);
    const server = createServer(app.callback());
    await listen(server, config.http.port, config.http.host);
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://${formatHost(config.http.host)}:${port}`,
      bootstrap,
      logger: container.get<Logger>(TYPES.Logger),
      close: async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await persistence.close();
      },
    };
  } catch (error) {
    await persistence.close();
    throw error;
  }
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
