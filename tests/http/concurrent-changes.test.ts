import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { borrowed, databaseBackends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

type Context = { app: TestApp; admin: string };

const ROUNDS = 5;

/**
 * Two changes of one user or role at once each keep the other's members: a user who changes their own name over and
 * over (PATCH /users/me) while an admin suspends them and takes their role used to write back the status
 * and role they had read, undoing both while the admin's request answered 200.
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (name) => `concurrent changes of one user or role on ${name}`,
)) {
  test.before.each(async (context) => {
    context.app = await startTestApp({ persistence: borrowed(await target.fresh()) });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  });
  test.after.each(({ app }) => app.close());
  test.after(() => target.dispose());

  test("a suspension and a new role hold against the user's own changes at the same moment", async ({
    app,
    admin,
  }) => {
    const role = await app.createRole();
    for (let round = 0; round < ROUNDS; round++) {
      const user = await app.createUser({ role: role.id });
      const token = (await app.login(user)).access_token;
      const [suspended, ...own] = await Promise.all([
        app.request('PATCH', `/users/${user.id}`, {
          token: admin,
          body: { status: 'suspended', role: null },
        }),
        ...Array.from({ length: 4 }, () =>
          app.request('PATCH', '/users/me', { token, body: { first_name: 'Still here' } }),
        ),
      ]);
      assert.is(suspended.status, 200, suspended.text);
      for (const answer of own) assert.ok([200, 401].includes(answer.status), answer.text);
      const after = await app.request('GET', `/users/${user.id}`, { token: admin });
      assert.equal(
        [(after.body as { status: string }).status, (after.body as { role: string | null }).role],
        ['suspended', null],
        after.text,
      );
    }
  });

  test('a role losing its admin access while renamed stays without it', async ({ app, admin }) => {
    for (let round = 0; round < ROUNDS; round++) {
      const role = await app.createRole({ admin_access: true });
      const answers = await Promise.all([
        app.request('PATCH', `/roles/${role.id}`, { token: admin, body: { admin_access: false } }),
        app.request('PATCH', `/roles/${role.id}`, { token: admin, body: { name: `renamed-${round}` } }),
      ]);
      for (const answer of answers) assert.is(answer.status, 200, answer.text);
      const after = await app.request('GET', `/roles/${role.id}`, { token: admin });
      assert.equal(after.body, { ...role, name: `renamed-${round}`, admin_access: false });
    }
  });

  test.run();
}
