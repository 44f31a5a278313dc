import cluster from 'node:cluster';
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import type { Container } from 'inversify';
import { counted } from './adapters/cli/counted.ts';
import { exportProgress } from './adapters/cli/export-progress.ts';
import { failureReason } from './adapters/cli/failure-reason.ts';
import { errorLine } from './adapters/cli/one-line-errors.ts';
import { importProgress, progressBar } from './adapters/cli/progress-bar.ts';
import { promptSecret, readSecretFromStdin } from './adapters/cli/read-secret.ts';
import { readableFileSize } from './adapters/cli/readable-file-size.ts';
import { sweepProgress } from './adapters/cli/sweep-progress.ts';
import { paint } from './adapters/cli/terminal-colour.ts';
import { textTable } from './adapters/cli/text-table.ts';
import { WorkerSupervisor } from './adapters/cluster/worker-supervisor.ts';
import type { AppConfig } from './adapters/config/config-schema.ts';
import { loadConfig } from './adapters/config/load-config.ts';
import { resolveSecret } from './adapters/config/resolve-secret.ts';
import { writeExport } from './adapters/export/write-export.ts';
import { clusterExposition } from './adapters/metrics/cluster-metrics.ts';
import type { Persistence } from './adapters/persistence/persistence.ts';
import { createSampleCargos } from './adapters/persistence/postgres/sample-cargos.ts';
import {
  type SweepArea,
  SweepFilesHandler,
  type SweepFinding,
  type SweepSummary,
} from './application/files/sweep-files.ts';
import { ExportItemsHandler } from './application/items/export-items.ts';
import { ImportItemsHandler } from './application/items/import-items.ts';
import { ListPermissionsHandler } from './application/permissions/list-permissions.ts';
import type { Clock } from './application/ports/clock.ts';
import type { FileStorage } from './application/ports/file-storage.ts';
import type { ImportFormat } from './application/ports/import-records.ts';
import type { ItemStore } from './application/ports/item-store.ts';
import type { RoleRepository } from './application/ports/role-repository.ts';
import type { UserRepository } from './application/ports/user-repository.ts';
import { ListWatchedCollectionsHandler } from './application/realtime/list-watched-collections.ts';
import { UnwatchCollectionHandler } from './application/realtime/unwatch-collection.ts';
import { WatchCollectionHandler } from './application/realtime/watch-collection.ts';
import { CreateRoleHandler } from './application/roles/create-role.ts';
import { ListRolesHandler } from './application/roles/list-roles.ts';
import type { BootstrapResult } from './application/setup/bootstrap.ts';
import { ignoredAdminSettings } from './application/setup/ignored-admin-settings.ts';
import { CreateUserHandler } from './application/users/create-user.ts';
import { ListUsersHandler } from './application/users/list-users.ts';
import { RevokeUserTokensHandler } from './application/users/revoke-user-tokens.ts';
import { SetStaticTokenHandler } from './application/users/set-static-token.ts';
import { UpdateUserHandler } from './application/users/update-user.ts';
import { buildContainer, TYPES } from './container.ts';
import { SYSTEM_ACCOUNTABILITY } from './domain/accountability.ts';
import { Email } from './domain/email.ts';
import type { UserStatus } from './domain/user.ts';
import {
  migratedAndBootstrapped,
  openPersistence,
  prepareDatabase,
  serveMetrics,
  serverUrl,
  startServer,
} from './main.ts';
import { VERSION } from './version.ts';

/**
 * The work behind each command of `src/cli.ts`. Kept apart so that `--help` and mistyped commands answer
 * without loading the server (about 0.2 s instead of 1.8 s through tsx).
 */

const config = (): AppConfig => resolveSecret(loadConfig());

/** Runs one piece of work against a migrated database and closes it again. */
async function withContainer<T>(
  work: (container: Container, persistence: Persistence) => Promise<T>,
): Promise<T> {
  const appConfig = config();
  const persistence = await openPersistence(appConfig);
  try {
    await persistence.migrate();
    await persistence.schema.refresh();
    return await work(await buildContainer(appConfig, persistence), persistence);
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

/** `appConfig`: read by the command line before it loads this module (cli.ts). */
export async function serve(appConfig: AppConfig): Promise<void> {
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

export async function bootstrap(): Promise<void> {
  const appConfig = config();
  const persistence = await openPersistence(appConfig);
  try {
    const container = await buildContainer(appConfig, persistence);
    const result = await migratedAndBootstrapped(persistence, container, appConfig.bootstrap);
    if (result.created) reportBootstrap(result);
    else {
      console.log('An admin already exists: nothing to do.');
      const ignored = ignoredAdminSettings(appConfig.bootstrap);
      if (ignored) console.log(`${ignored}.`);
    }
  } finally {
    await persistence.close();
  }
}

export const createUser = (options: { email: string; password: string; role?: string }) =>
  withContainer(async (container) => {
    // `--role ""` (an unset variable, say) is a role that does not exist, not the public role.
    const roleId = options.role === undefined ? null : await roleIdByName(container, options.role);
    const user = await container.get(CreateUserHandler).execute(SYSTEM_ACCOUNTABILITY, {
      email: options.email,
      password: options.password,
      role: roleId,
    });
    console.log(`Created user ${user.email} (${user.id}).`);
  });

export const setStaticToken = (options: { email: string; token?: string }) =>
  withContainer(async (container) => {
    // Said as the other commands naming a user by e-mail say it, not as the handler's "User not found.".
    await userIdByEmail(container, options.email);
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

/** The output of the list commands: a table for a person, or `--json`, the API's own shape, for a script. */
type ListOptions = { json: boolean };

function printList<T>(options: ListOptions, views: T[], header: string[], row: (view: T) => string[]): void {
  console.log(options.json ? JSON.stringify(views, null, 2) : textTable(header, views.map(row)));
}

export const listUsers = (options: ListOptions) =>
  withContainer(async (container) => {
    const users = await container.get(ListUsersHandler).execute(SYSTEM_ACCOUNTABILITY);
    const roleNames = await roleNamesById(container);
    printList(options, users, ['email', 'status', 'role', 'static token', 'id'], (user) => [
      user.email,
      user.status,
      user.role === null ? '-' : (roleNames.get(user.role) ?? user.role),
      user.token === null ? 'no' : 'yes',
      user.id,
    ]);
  });

export const listRoles = (options: ListOptions) =>
  withContainer(async (container) => {
    const roles = await container.get(ListRolesHandler).execute(SYSTEM_ACCOUNTABILITY);
    printList(options, roles, ['name', 'admin', 'id'], (role) => [
      role.name,
      role.admin_access ? 'yes' : 'no',
      role.id,
    ]);
  });

export const listPermissions = (options: ListOptions & { role?: string }) =>
  withContainer(async (container) => {
    const roleId = options.role === undefined ? undefined : await roleIdByName(container, options.role);
    const roleNames = await roleNamesById(container);
    const permissions = (await container.get(ListPermissionsHandler).execute(SYSTEM_ACCOUNTABILITY)).filter(
      (permission) => roleId === undefined || permission.role === roleId,
    );
    const json = (value: unknown) => (value === null ? '-' : JSON.stringify(value));
    printList(
      options,
      permissions,
      ['role', 'collection', 'action', 'fields', 'permissions', 'id'],
      (permission) => [
        permission.role === null ? '(public)' : (roleNames.get(permission.role) ?? permission.role),
        permission.collection,
        permission.action,
        permission.fields === null ? '-' : permission.fields.join(','),
        json(permission.permissions),
        permission.id,
      ],
    );
  });

/**
 * A new password, from the terminal (asked twice, not echoed) or from stdin. Without either, it fails before
 * the database is opened; the user is looked up before the password is asked, so that a mistyped address
 * fails before anyone types a password.
 */
export async function setPassword(email: string, options: { passwordStdin: boolean }): Promise<void> {
  if (!options.passwordStdin && !process.stdin.isTTY)
    throw new Error('no terminal to ask for the password on: pipe it in with --password-stdin');
  await withContainer(async (container) => {
    const id = await userIdByEmail(container, email);
    const password = options.passwordStdin ? await readSecretFromStdin() : await promptTwice(email);
    const user = await container
      .get(UpdateUserHandler)
      .execute(SYSTEM_ACCOUNTABILITY, { id, changes: { password } });
    console.log(`Password changed for ${user.email}; its sessions are ended.`);
  });
}

async function promptTwice(email: string): Promise<string> {
  const password = await promptSecret(`New password for ${email}: `);
  if ((await promptSecret('The same again: ')) !== password) throw new Error('the two passwords differ');
  return password;
}

export const setStatus = (email: string, status: UserStatus) =>
  withContainer(async (container) => {
    const id = await userIdByEmail(container, email);
    const user = await container
      .get(UpdateUserHandler)
      .execute(SYSTEM_ACCOUNTABILITY, { id, changes: { status } });
    console.log(
      status === 'active' ? `Activated ${user.email}.` : `Suspended ${user.email}; its sessions are ended.`,
    );
  });

export const revokeTokens = (email: string) =>
  withContainer(async (container) => {
    const id = await userIdByEmail(container, email);
    const revoked = await container.get(RevokeUserTokensHandler).execute(SYSTEM_ACCOUNTABILITY, { id });
    console.log(
      `Ended the sessions of ${revoked.email}${revoked.hadStaticToken ? ' and removed its static token' : ''}.`,
    );
  });

/** With realtime off nothing prunes the change log: a collection is not watched then, only unwatched. */
export const watchCollection = (collection: string) =>
  withContainer(async (container, persistence) => {
    const watch = container.get<AppConfig>(TYPES.Config).realtime.enabled ? persistence.watch : undefined;
    await new WatchCollectionHandler(persistence.schema, watch).execute(SYSTEM_ACCOUNTABILITY, {
      collection,
    });
    console.log(`Watching ${collection}: its writes made by hand in SQL are realtime events too.`);
  });

export const unwatchCollection = (collection: string) =>
  withContainer(async (_container, persistence) => {
    const watched = await new UnwatchCollectionHandler(persistence.schema, persistence.watch).execute(
      SYSTEM_ACCOUNTABILITY,
      { collection },
    );
    console.log(
      watched
        ? `No longer watching ${collection}: only its writes through datagate are realtime events.`
        : `${collection} was not watched: nothing to do.`,
    );
  });

export const realtimeStatus = (options: ListOptions) =>
  withContainer(async (_container, persistence) => {
    const watched = await new ListWatchedCollectionsHandler(persistence.watch).execute(SYSTEM_ACCOUNTABILITY);
    if (watched.length === 0 && !options.json) {
      console.log('No collection is watched: only writes through datagate are realtime events.');
      return;
    }
    printList(options, watched, ['collection', 'trigger'], (entry) => [
      entry.collection,
      entry.current ? 'current' : `stale: columns changed, run datagate realtime watch ${entry.collection}`,
    ]);
  });

export async function addSampleCargos(rows: number): Promise<void> {
  const persistence = await openPersistence(config());
  try {
    await persistence.migrate();
    const progress = progressBar('cargos');
    await createSampleCargos(persistence.orm, { rows, onProgress: progress.update });
    progress.finish(`${counted(rows, 'row')} added`);
  } finally {
    await persistence.close();
  }
}

/**
 * `datagate export`: the HTTP export's handler and file writer, as the system (every row and field), to
 * stdout. A reader that closes stdout early (`| head`) ends the export; that is reported, not thrown.
 */
export const exportItems = (
  collection: string,
  options: {
    format: string;
    fields?: string;
    filter?: string;
    sort?: string;
    search?: string;
    limit?: number;
    escapeFormulas?: boolean;
  },
) =>
  withContainer(async (container) => {
    const { format, limit, escapeFormulas, ...rest } = options;
    const query = {
      ...rest,
      export: format,
      ...(limit === undefined ? {} : { limit: String(limit) }),
      ...(escapeFormulas ? { escape_formulas: 'true' } : {}),
    };
    const itemExport = await container
      .get(ExportItemsHandler)
      .open(SYSTEM_ACCOUNTABILITY, { collection, query });
    const { stdout } = process;
    let broken = false;
    const onError = () => {
      broken = true;
      stdout.destroy();
    };
    stdout.on('error', onError);
    const progress = exportProgress(collection);
    try {
      const rows = await writeExport(itemExport, stdout, progress.update);
      if (broken || stdout.destroyed) {
        console.error(`${collection}: the output closed after ${counted(rows, 'row')}`);
        process.exitCode = 1;
        return;
      }
      // Everything written has left the process before it exits.
      await new Promise<void>((resolve) => stdout.write('', () => resolve()));
      progress.finish(rows);
    } finally {
      stdout.off('error', onError);
      await itemExport.close();
    }
  });

const IMPORT_FORMATS: Readonly<Record<string, ImportFormat>> = {
  '.csv': 'csv',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

/**
 * `datagate import`: the file through the import's handler as the API runs it (docs/api.md §13), with an
 * admin's rights, its progress on stderr. A batch import with a refused chunk lists each such chunk and
 * ends with exit code 1.
 */
export async function importFile(
  collection: string,
  file: string,
  options: { format?: ImportFormat; batch: boolean },
): Promise<void> {
  const format = options.format ?? IMPORT_FORMATS[extname(file).toLowerCase()];
  if (!format)
    throw new Error(`cannot tell the format of ${file} from its extension: give --format csv|json|ndjson`);
  const size = await readableFileSize(file);
  await withContainer(async (container) => {
    const progress = importProgress(collection, size);
    const result = await container.get(ImportItemsHandler).execute(SYSTEM_ACCOUNTABILITY, {
      collection,
      format,
      bytes: createReadStream(file),
      mode: options.batch ? 'batch' : 'all',
      onProgress: progress.update,
    });
    progress.finish(`${counted(result.inserted, 'row')} imported`);
    for (const chunk of result.chunks ?? []) {
      if ('error' in chunk)
        console.error(`rows ${chunk.rows[0]}–${chunk.rows[1]} not imported: ${chunk.error.message}`);
    }
    if (result.chunks?.some((chunk) => 'error' in chunk)) process.exitCode = 1;
  });
}

/** Where each area of the store is, as a sweep's output names it. */
const SWEEP_AREAS: Readonly<Record<SweepArea, { prefix: string; why: string }>> = {
  files: { prefix: 'files/', why: 'no row' },
  variants: { prefix: 'variants/', why: "its file's row is gone" },
  uploads: { prefix: 'tmp/', why: 'an upload that never finished' },
};

/**
 * `datagate files sweep` (docs/api.md §9): the findings on stdout as they are made, a line each (or a JSON
 * object each, `--json`), then the summary; the progress on stderr on a terminal. Exit 0 whatever it
 * finds: finding orphans is what it is for.
 */
export const sweepFiles = (options: { delete: boolean; json: boolean; olderThan: number }) =>
  withContainer(async (container, persistence) => {
    const handler = new SweepFilesHandler(
      persistence.schema,
      container.get<ItemStore>(TYPES.ItemStore),
      container.get<FileStorage>(TYPES.FileStorage),
      container.get<Clock>(TYPES.Clock),
    );
    const progress = sweepProgress();
    const print = (line: string) => {
      progress.clear();
      console.log(line);
    };
    const summary = await handler.execute(SYSTEM_ACCOUNTABILITY, {
      delete: options.delete,
      olderThanMs: options.olderThan,
      onProgress: progress.update,
      onFinding: (finding) =>
        print(options.json ? JSON.stringify(findingJson(finding)) : findingLine(finding)),
    });
    progress.clear();
    if (options.json) console.log(JSON.stringify(summaryJson(summary)));
    else for (const line of summaryLines(summary)) console.log(line);
  });

function findingLine(finding: SweepFinding): string {
  if (finding.kind === 'missing-bytes')
    return `missing ${finding.key}: the file ${finding.id} has no bytes (reported only)`;
  if (finding.kind === 'unreferenced')
    return `unreferenced ${finding.bytes.name} (${counted(finding.bytes.size, 'byte')}): under no key (reported only)`;
  const { key, size } = finding.object;
  return `${finding.deleted ? 'deleted' : 'orphan'} ${key} (${counted(size, 'byte')}): ${SWEEP_AREAS[finding.area].why}`;
}

function findingJson(finding: SweepFinding) {
  if (finding.kind === 'missing-bytes') return { type: 'missing_bytes', id: finding.id, key: finding.key };
  if (finding.kind === 'unreferenced')
    return { type: 'unreferenced', name: finding.bytes.name, size: finding.bytes.size };
  const { key, size, modifiedAt } = finding.object;
  return {
    type: 'orphan',
    area: SWEEP_AREAS[finding.area].prefix,
    key,
    size,
    modified_at: modifiedAt.toISOString(),
    deleted: finding.deleted,
  };
}

function summaryLines(summary: SweepSummary): string[] {
  const areas = (Object.keys(SWEEP_AREAS) as SweepArea[]).map((area) => {
    const { count, bytes } = summary.orphans[area];
    return `${SWEEP_AREAS[area].prefix}: ${counted(count, 'orphan')}, ${counted(bytes, 'byte')}`;
  });
  const orphans = Object.values(summary.orphans).reduce((sum, tally) => sum + tally.count, 0);
  return [
    `Checked ${counted(summary.keysChecked, 'key')} and ${counted(summary.rowsChecked, 'row')}.`,
    ...areas,
    `rows without bytes: ${summary.missingBytes.toLocaleString('en')} (reported only, never deleted)`,
    ...(summary.unreferenced
      ? [
          `bytes under no key: ${summary.unreferenced.count.toLocaleString('en')}, ${counted(summary.unreferenced.bytes, 'byte')} (reported only, never deleted)`,
        ]
      : []),
    summary.deleted
      ? `Deleted ${counted(orphans, 'orphan')}.`
      : orphans > 0
        ? 'Nothing deleted: run again with --delete to remove the orphans.'
        : 'Nothing to delete.',
  ];
}

function summaryJson(summary: SweepSummary) {
  return {
    type: 'summary',
    deleted: summary.deleted,
    orphans: Object.fromEntries(
      (Object.keys(SWEEP_AREAS) as SweepArea[]).map((area) => [
        SWEEP_AREAS[area].prefix,
        summary.orphans[area],
      ]),
    ),
    missing_bytes: summary.missingBytes,
    ...(summary.unreferenced ? { unreferenced: summary.unreferenced } : {}),
    keys_checked: summary.keysChecked,
    rows_checked: summary.rowsChecked,
  };
}

async function userIdByEmail(container: Container, email: string): Promise<string> {
  const user = await container
    .get<UserRepository>(TYPES.UserRepository)
    .findByEmail(Email.parse(email).value);
  if (!user) throw new Error(`user "${email}" does not exist`);
  return user.id;
}

async function roleNamesById(container: Container): Promise<Map<string, string>> {
  const roles = await container.get(ListRolesHandler).execute(SYSTEM_ACCOUNTABILITY);
  return new Map(roles.map((role) => [role.id, role.name]));
}

async function roleIdByName(container: Container, name: string): Promise<string> {
  const role = await container.get<RoleRepository>(TYPES.RoleRepository).findByName(name);
  if (!role) throw new Error(`role "${name}" does not exist`);
  return role.id;
}
