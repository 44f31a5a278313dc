import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { borrowed, databaseBackends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

type Context = { app: TestApp; admin: string };

const ROUNDS = 10;

/**
 * A PATCH and a DELETE of one user, role or permission at once: whichever the database takes second, a
 * record whose DELETE answered 204 stays deleted (a change used to write the whole record back, bringing
 * a deleted user back with their password), and the PATCH answers 200 or 404.
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (name) => `a change racing a delete on ${name}`,
)) {
  test.before.each(async (context) => {
    context.app = await startTestApp({ persistence: borrowed(await target.fresh()) });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  });
  test.after.each(({ app }) => app.close());
  test.after(() => target.dispose());

  async function race({ app, admin }: Context, path: string, changes: Record<string, unknown>) {
    const [changed, deleted] = await Promise.all([
      app.request('PATCH', path, { token: admin, body: changes }),
      app.request('DELETE', path, { token: admin }),
    ]);
    assert.is(deleted.status, 204, deleted.text);
    assert.ok(changed.status === 200 || changed.status === 404, changed.text);
    const after = await app.request('GET', path, { token: admin });
    assert.is(after.status, 404, `${path} is back after its delete: ${after.text}`);
  }

  test('a user deleted while changed stays deleted', async (context) => {
    for (let round = 0; round < ROUNDS; round++) {
      const user = await context.app.createUser();
      await race(context, `/users/${user.id}`, { first_name: 'Back' });
    }
  });

  test('a role deleted while changed stays deleted', async (context) => {
    for (let round = 0; round < ROUNDS; round++) {
      const role = await context.app.createRole();
      await race(context, `/roles/${role.id}`, { description: 'Back' });
    }
  });

  test('a permission deleted while changed stays deleted', async (context) => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = await context.app.request('POST', '/permissions', {
        token: context.admin,
        body: { role: null, collection: 'cargos', action: 'read' },
      });
      assert.is(created.status, 200, created.text);
      await race(context, `/permissions/${(created.body as { id: string }).id}`, { fields: ['id'] });
    }
  });

  test.run();
}
