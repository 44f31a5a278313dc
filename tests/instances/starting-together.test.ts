import { tmpdir } from 'node:os';
import * as assert from 'uvu/assert';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../faults/throwaway-database.ts';
import { datagate } from '../support/datagate-process.ts';
import { postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { TEST_SECRET } from '../support/test-app.ts';
import { type Instance, startInstance } from './instance.ts';

/**
 * Processes starting at once on an empty database (docs/api.md §10): the migration lock also covers the
 * first admin's creation, so one of them creates it, the others find it, and every one of them serves.
 */
const together = skippableSuite<{ database: ThrowawayDatabase }>(
  'instances starting together on an empty database',
  postgresSkip,
);

together.before.each(async (context) => {
  context.database = await createThrowawayDatabase('together');
});
together.after.each(async ({ database }) => {
  await database?.drop();
});

const env = (database: ThrowawayDatabase) => ({
  NODE_ENV: 'test',
  SECRET: TEST_SECRET,
  LOG_LEVEL: 'silent',
  DATA_DIR: tmpdir(),
  DATABASE_URL: database.url(),
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'admin-password-123',
});

const admins = (database: ThrowawayDatabase) =>
  database.query<{ email: string }>('select email from datagate_users');

together('three servers started at once all serve, with one first admin', async ({ database }) => {
  const started = await Promise.allSettled([1, 2, 3].map(() => startInstance(env(database))));
  const instances = started.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  try {
    for (const start of started)
      assert.is(start.status, 'fulfilled', start.status === 'rejected' ? String(start.reason) : '');
    assert.equal(await admins(database), [{ email: 'admin@example.com' }]);
  } finally {
    await Promise.all(instances.map((instance: Instance) => instance.stop()));
  }
});

together(
  'three `datagate bootstrap` run at once: one creates the admin, the others find it',
  async ({ database }) => {
    const runs = await Promise.all([1, 2, 3].map(() => datagate(['bootstrap'], env(database))));
    for (const run of runs) assert.is(run.code, 0, run.stderr);
    assert.is(runs.filter((run) => run.stdout.startsWith('Created the first admin')).length, 1);
    assert.equal(await admins(database), [{ email: 'admin@example.com' }]);
  },
);

together.run();
