import { Command } from 'commander';
import type { Container } from 'inversify';
import { progressBar } from './adapters/cli/progress-bar.ts';
import type { AppConfig } from './adapters/config/config-schema.ts';
import { loadConfig } from './adapters/config/load-config.ts';
import { resolveSecret } from './adapters/config/resolve-secret.ts';
import { unreachableReason } from './adapters/persistence/database-unreachable.ts';
import { createSampleCargos } from './adapters/persistence/postgres/sample-cargos.ts';
import type { RoleRepository } from './application/ports/role-repository.ts';
import { CreateRoleHandler } from './application/roles/create-role.ts';
import { BootstrapHandler, type BootstrapResult } from './application/setup/bootstrap.ts';
import { CreateUserHandler } from './application/users/create-user.ts';
import { SetStaticTokenHandler } from './application/users/set-static-token.ts';
import { buildContainer, TYPES } from './container.ts';
import { SYSTEM_ACCOUNTABILITY } from './domain/accountability.ts';
import { DomainError } from './domain/errors.ts';
import { openPersistence, startServer } from './main.ts';
import { VERSION } from './version.ts';

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
  if (result.generatedPassword) console.log('This password is shown only once: write it down now.');
}

async function serve(): Promise<void> {
  const server = await startServer(config());
  console.log(`datagate ${VERSION} listening on ${server.url}`);
  let stopping = false;
  const stop = (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ reason }, 'shutting down');
    server.close().then(
      () => process.exit(code),
      (error: unknown) => {
        server.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
  server.ready.then(reportBootstrap, (error: unknown) => {
    // Closing rejects `ready` as well; only a failure of the start-up work itself ends the process here.
    if (stopping) return;
    console.error(`datagate: ${describeFailure(error)}`);
    stop('start-up failure', 1);
  });
}

const program = new Command()
  .name('datagate')
  .description('A fast, safe data platform: confidential-by-default items over HTTP on PostgreSQL.')
  .version(VERSION)
  .showHelpAfterError();

program
  .command('serve', { isDefault: true })
  .description('migrate, bootstrap if needed, start the HTTP server')
  .action(serve);

program
  .command('migrate')
  .description('apply system-table migrations')
  .action(() => withContainer(async () => console.log('Migrations applied.')));

program
  .command('bootstrap')
  .description('migrate, then create the Administrator role and the first admin if none exists')
  .action(() =>
    withContainer(async (container) => {
      const { bootstrap } = container.get<AppConfig>(TYPES.Config);
      const result = await container.get(BootstrapHandler).execute(bootstrap);
      if (result.created) reportBootstrap(result);
      else console.log('An admin already exists: nothing to do.');
    }),
  );

const users = program.command('users').description('manage users');
users
  .command('create')
  .description('create a user')
  .requiredOption('--email <email>', 'e-mail address')
  .requiredOption('--password <password>', 'password (at least 8 characters)')
  .option('--role <name>', 'name of the role to give the user')
  .action((options: { email: string; password: string; role?: string }) =>
    withContainer(async (container) => {
      const roleId = options.role ? await roleIdByName(container, options.role) : null;
      const user = await container.get(CreateUserHandler).execute(SYSTEM_ACCOUNTABILITY, {
        email: options.email,
        password: options.password,
        role: roleId,
      });
      console.log(`Created user ${user.email} (${user.id}).`);
    }),
  );
users
  .command('token')
  .description('set a static token for a user (generated and printed when --token is not given)')
  .requiredOption('--email <email>', 'e-mail address of the user')
  .option('--token <token>', 'the token to set (at least 32 characters)')
  .action((options: { email: string; token?: string }) =>
    withContainer(async (container) => {
      const token = await container.get(SetStaticTokenHandler).execute(options);
      console.log(options.token ? `Static token set for ${options.email}.` : token);
    }),
  );

program
  .command('roles')
  .description('manage roles')
  .command('create')
  .description('create a role')
  .requiredOption('--name <name>', 'name of the role')
  .option('--admin', 'give the role admin access (bypasses all permissions)', false)
  .action((options: { name: string; admin: boolean }) =>
    withContainer(async (container) => {
      const role = await container
        .get(CreateRoleHandler)
        .execute(SYSTEM_ACCOUNTABILITY, { name: options.name, admin_access: options.admin });
      console.log(`Created role ${role.name} (${role.id}).`);
    }),
  );

program
  .command('sample')
  .description('create sample data')
  .command('cargos')
  .description("create the seed's sample `cargos` collection (if missing) and add generated rows")
  .option('--rows <n>', 'how many rows to add', '1000')
  .action(async (options: { rows: string }) => {
    const rows = Number(options.rows);
    if (!Number.isSafeInteger(rows) || rows < 0) throw new Error('--rows must be a whole number ≥ 0');
    const appConfig = config();
    const persistence = await openPersistence(appConfig);
    try {
      await persistence.migrate();
      const progress = progressBar('cargos');
      await createSampleCargos(persistence.orm, { rows, onProgress: progress.update });
      progress.finish(`${rows.toLocaleString('en')} rows added`);
    } finally {
      await persistence.close();
    }
  });

async function roleIdByName(container: Container, name: string): Promise<string> {
  const role = await container.get<RoleRepository>(TYPES.RoleRepository).findByName(name);
  if (!role) throw new Error(`role "${name}" does not exist`);
  return role.id;
}

function describeFailure(error: unknown): string {
  if (error instanceof DomainError && error.extensions.field)
    return `${error.extensions.field}: ${error.message}`;
  // SERVICE_UNAVAILABLE's message is written for HTTP callers; an operator wants the reason.
  const unreachable = unreachableReason(error);
  if (unreachable) return `the database cannot be reached: ${unreachable}`;
  return error instanceof Error ? error.message : String(error);
}

program.parseAsync().catch((error: unknown) => {
  console.error(`datagate: ${describeFailure(error)}`);
  process.exit(1);
});
