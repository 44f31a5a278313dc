import cluster from 'node:cluster';
import type { Container } from 'inversify';
import { failureReason } from './adapters/cli/failure-reason.ts';
import { errorLine } from './adapters/cli/one-line-errors.ts';
import { progressBar } from './adapters/cli/progress-bar.ts';
import { paint } from './adapters/cli/terminal-colour.ts';
import { WorkerSupervisor } from './adapters/cluster/worker-supervisor.ts';
import type { AppConfig } from './adapters/config/config-schema.ts';
import { loadConfig } from './adapters/config/load-config.ts';
import { resolveSecret } from './adapters/config/resolve-secret.ts';
import { clusterExposition } from './adapters/metrics/cluster-metrics.ts';
import { createSampleCargos } from './adapters/persistence/postgres/sample-cargos.ts';
import type { RoleRepository } from './application/ports/role-repository.ts';
import { CreateRoleHandler } from './application/roles/create-role.ts';
import { BootstrapHandler, type BootstrapResult } from './application/setup/bootstrap.ts';
import { CreateUserHandler } from './application/users/create-user.ts';
import { SetStaticTokenHandler } from './application/users/set-static-token.ts';
import { buildContainer, TYPES } from './container.ts';
import { SYSTEM_ACCOUNTABILITY } from './domain/accountability.ts';
import { openPersistence, prepareDatabase, serveMetrics, serverUrl, startServer } from './main.ts';
import { VERSION } from './version.ts';

/**
 * The work behind each command of `src/cli.ts`. Kept apart so that `--help` and mistyped commands answer
 * without loading the server (about 0.2 s instead of 1.8 s through tsx).
 */

const config = (): AppConfig => resolveSecret(loadConfig());

/** Runs one piece of work against a migrated database and closes it again. */
async function withContainer<T>(work: (container: Container) => Promise<T>): Promise<T> {
  const appConfig = config();
  const persistence = await openPersistence(appConfig);
  try {
    await persistence.migrate();
    await persistence.schema.refresh();
    return await work(buildContainer(appConfig, persistence));
  } finally {
    await persistence.close();
  }
}

function reportBootstrap(result: BootstrapResult): void {
  if (!result.created) return;
  const password = result.generatedPassword ?? '(the configured ADMIN_PASSWORD)';
  console.log(`Created the first admin: ${result.email} / ${password}`);
  if (result.generatedPassword)
    console.log(
      paint(process.stdout, ['bold', 'yellow'], 'This password is shown only once: write it down now.'),
    );
}

export async function serve(): Promise<void> {
  const appConfig = config();
  if (cluster.isWorker) return serveOne(appConfig, { id: cluster.worker!.id });
  if (appConfig.http.workers > 1) return serveInWorkers(appConfig);
  return serveOne(appConfig);
}

/** One HTTP server in this process: the whole server, or one of the workers of `serveInWorkers`. */
async function serveOne(appConfig: AppConfig, worker?: { id: number }): Promise<void> {
  const server = await startServer(appConfig, { worker });
  if (!worker) console.log(`datagate ${VERSION} listening on ${server.url}`);
  if (server.metricsUrl) console.log(`metrics on ${server.metricsUrl}/metrics`);
  const stop = onceStopping((reason, code) => {
    server.logger.info({ reason }, 'shutting down');
    server.close().then(
      () => process.exit(code),
      (error: unknown) => {
        server.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
  server.ready.then(reportBootstrap, (error: unknown) => {
    // Closing rejects `ready` as well; only a failure of the start-up work itself ends the process here.
    if (stop.stopping()) return;
    console.error(errorLine(failureReason(error)));
    stop('start-up failure', 1);
  });
}

/**
 * `http.workers` > 1: this process migrates and bootstraps once, then forks the workers and watches them
 * (docs/decisions/0016). The embedded database belongs to one process, so only a PostgreSQL server will do.
 */
async function serveInWorkers(appConfig: AppConfig): Promise<void> {
  const { workers } = appConfig.http;
  if (!appConfig.database.url)
    throw new Error(
      `http.workers: ${workers} workers need a PostgreSQL server (database.url); the embedded database is held by one process`,
    );
  const preparation = await prepareDatabase(appConfig);
  const { logger } = preparation;
  let supervisor: WorkerSupervisor | undefined;
  const stop = onceStopping((reason, code) => {
    logger.info({ reason }, 'shutting down');
    if (!supervisor) return preparation.cancel();
    supervisor.stop().then((drained) => process.exit(code || drained));
  });
  try {
    reportBootstrap(await preparation.done);
  } catch (error) {
    if (stop.stopping()) process.exit(0);
    throw error;
  }
  supervisor = new WorkerSupervisor({
    count: workers,
    drainTimeoutMs: appConfig.http.shutdownTimeout,
    logger,
  });
  try {
    const port = await supervisor.start();
    const metrics = await serveMetrics(appConfig, clusterExposition());
    console.log(
      `datagate ${VERSION} listening on ${serverUrl(appConfig.http.host, port)} (${workers} workers)`,
    );
    if (metrics) console.log(`metrics on ${serverUrl(appConfig.metrics.host, metrics.port)}/metrics`);
  } catch (error) {
    console.error(errorLine(failureReason(error)));
    stop('start-up failure', 1);
  }
}

type Stop = ((reason: string, code: number) => void) & { stopping(): boolean };

/** `shutDown` once, on SIGTERM or SIGINT (exit 0) or when called (a failure: its own code). */
function onceStopping(shutDown: (reason: string, code: number) => void): Stop {
  let stopping = false;
  const stop = (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    shutDown(reason, code);
  };
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
  return Object.assign(stop, { stopping: () => stopping });
}

export const migrate = () => withContainer(async () => console.log('Migrations applied.'));

export const bootstrap = () =>
  withContainer(async (container) => {
    const { bootstrap } = container.get<AppConfig>(TYPES.Config);
    const result = await container.get(BootstrapHandler).execute(null, bootstrap);
    if (result.created) reportBootstrap(result);
    else console.log('An admin already exists: nothing to do.');
  });

export const createUser = (options: { email: string; password: string; role?: string }) =>
  withContainer(async (container) => {
    const roleId = options.role ? await roleIdByName(container, options.role) : null;
    const user = await container.get(CreateUserHandler).execute(SYSTEM_ACCOUNTABILITY, {
      email: options.email,
      password: options.password,
      role: roleId,
    });
    console.log(`Created user ${user.email} (${user.id}).`);
  });

export const setStaticToken = (options: { email: string; token?: string }) =>
  withContainer(async (container) => {
    const token = await container.get(SetStaticTokenHandler).execute(null, options);
    console.log(options.token ? `Static token set for ${options.email}.` : token);
  });

export const createRole = (options: { name: string; admin: boolean }) =>
  withContainer(async (container) => {
    const role = await container
      .get(CreateRoleHandler)
      .execute(SYSTEM_ACCOUNTABILITY, { name: options.name, admin_access: options.admin });
    console.log(`Created role ${role.name} (${role.id}).`);
  });

export async function addSampleCargos(rows: number): Promise<void> {
  const persistence = await openPersistence(config());
  try {
    await persistence.migrate();
    const progress = progressBar('cargos');
    await createSampleCargos(persistence.orm, { rows, onProgress: progress.update });
    progress.finish(`${rows.toLocaleString('en')} rows added`);
  } finally {
    await persistence.close();
  }
}

async function roleIdByName(container: Container, name: string): Promise<string> {
  const role = await container.get<RoleRepository>(TYPES.RoleRepository).findByName(name);
  if (!role) throw new Error(`role "${name}" does not exist`);
  return role.id;
}
