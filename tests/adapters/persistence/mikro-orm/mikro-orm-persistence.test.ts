import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MikroOrmDatabaseHealth } from '../../../../src/adapters/persistence/mikro-orm/mikro-orm-database-health.ts';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { aRole, aUser, T0 } from '../../../contracts/fixtures.ts';
import { pgliteTarget } from '../../../support/databases.ts';
import { postgresSkip, testDatabaseUrl } from '../../../support/postgres-server.ts';
import { skippableSuite } from '../../../support/skippable-suite.ts';

const fileBacked = suite<{ dataDir: string }>('MikroORM persistence on a PGlite data directory');
fileBacked.before(async (context) => {
  context.dataDir = await mkdtemp(join(tmpdir(), 'datagate-pglite-'));
});
fileBacked.after(async ({ dataDir }) => {
  await rm(dataDir, { recursive: true, force: true });
});

fileBacked('data survives close and reopen; a second open meanwhile is refused', async ({ dataDir }) => {
  const role = aRole({ adminAccess: true });
  const user = aUser({ roleId: role.id, createdAt: T0 });
  const first = await openMikroOrmPersistence({ dataDir });
  try {
    assert.ok(existsSync(join(dataDir, 'pglite')));
    await first.migrate();
    await first.roles.save(role);
    await first.users.save(user);
    await openMikroOrmPersistence({ dataDir }).then(
      (second) => second.close().then(() => assert.unreachable('second open was granted')),
      (error: Error) => assert.match(error.message, `data directory ${dataDir} is already open`),
    );
  } finally {
    await first.close();
  }
  assert.is(existsSync(join(dataDir, 'datagate.lock')), false);

  const reopened = await openMikroOrmPersistence({ dataDir });
  try {
    await reopened.migrate();
    assert.equal(await reopened.roles.findById(role.id), role);
    assert.equal(await reopened.users.findById(user.id), user);
    assert.is(await reopened.users.anyAdminExists(), true);
  } finally {
    await reopened.close();
  }
});

fileBacked.run();

const pglite = pgliteTarget();
const health = suite<{ persistence: MikroOrmPersistence }>('MikroOrmDatabaseHealth');
health.before.each(async (context) => {
  context.persistence = await pglite.fresh();
});
health.after(() => pglite.dispose());

health('a database that does not answer in time is an error, not a hang', async ({ persistence }) => {
  let started!: () => void;
  let finish!: () => void;
  const opened = new Promise<void>((resolve) => {
    started = resolve;
  });
  const held = new Promise<void>((resolve) => {
    finish = resolve;
  });
  // PGlite has one connection: a transaction that stays open keeps the health query waiting.
  const transaction = persistence.orm.em.fork().transactional(async () => {
    started();
    await held;
  });
  await opened;
  try {
    const result = await new MikroOrmDatabaseHealth(persistence.orm, 50).check();
    assert.is(result.status, 'error');
    assert.is(result.detail, 'no answer within 50 ms');
    assert.ok(result.responseTimeMs >= 45 && result.responseTimeMs < 1000);
  } finally {
    finish();
    await transaction;
  }
  assert.is((await persistence.health.check()).status, 'ok');
});

health('an unreachable server is an error that does not reveal the connection string', async () => {
  const unreachable = await openMikroOrmPersistence({
    url: 'postgresql://datagate:s3cret@127.0.0.1:1/nowhere',
    dataDir: tmpdir(),
  });
  try {
    const result = await unreachable.health.check();
    assert.is(result.status, 'error');
    assert.type(result.detail, 'string');
    for (const secret of ['s3cret', 'datagate:', '127.0.0.1', 'nowhere']) {
      assert.not.match(result.detail ?? '', secret);
    }
  } finally {
    await unreachable.close();
  }
});

health.run();

const server = skippableSuite('MikroORM persistence on a PostgreSQL server', postgresSkip);

server('instances starting together migrate one after the other, in their own schema', async () => {
  const schema = `datagate_race_${process.pid}_${Date.now().toString(36)}`;
  const instances = await Promise.all(
    [1, 2, 3].map(() => openMikroOrmPersistence({ url: testDatabaseUrl(), dataDir: tmpdir(), schema })),
  );
  try {
    await Promise.all(instances.map((instance) => instance.migrate()));
    const role = aRole();
    await instances[0].roles.save(role);
    assert.equal(await instances[2].roles.findById(role.id), role);
    const tables = await instances[0].orm.em
      .fork()
      .execute<{ name: string }[]>(
        'select table_name as name from information_schema.tables where table_schema = ? order by 1',
        [schema],
      );
    assert.equal(
      tables.map((table) => table.name),
      [
        'datagate_activity',
        'datagate_files',
        'datagate_item_events',
        'datagate_migrations',
        'datagate_permissions',
        'datagate_revisions',
        'datagate_roles',
        'datagate_sessions',
        'datagate_storage_objects',
        'datagate_unfinished_uploads',
        'datagate_users',
      ],
    );
  } finally {
    await instances[0].orm.em.fork().execute(`drop schema if exists "${schema}" cascade`);
    await Promise.all(instances.map((instance) => instance.close()));
  }
});

server.run();
