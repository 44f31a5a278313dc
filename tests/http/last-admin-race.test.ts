import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { borrowed, databaseBackends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { type SeededUser, startTestApp, type TestApp, type TestResponse } from '../support/test-app.ts';
import { firstError } from './scenario.ts';

type Context = { app: TestApp; persistence: MikroOrmPersistence; first: SeededUser; firstToken: string };

const ROUNDS = 5;

/**
 * The answers of a race of two changes, each of which would be allowed alone: exactly one went through.
 * The other is LAST_ADMIN, or (when it was read after the first had committed: PGlite has one connection)
 * refused as its caller is no longer an active admin.
 */
function assertOneRefused(answers: TestResponse[]): void {
  const refused = answers.filter((answer) => answer.status >= 400);
  assert.is(refused.length, 1, `answers: ${answers.map((answer) => `${answer.status} ${answer.text}`)}`);
  const [answer] = refused;
  if (answer.status === 400) assert.is(firstError(answer).extensions.reason, 'LAST_ADMIN', answer.text);
  else assert.ok(answer.status === 401 || answer.status === 403, answer.text);
}

async function activeAdminCount(persistence: MikroOrmPersistence): Promise<number> {
  return (await persistence.users.activeAdmins()).length;
}

/**
 * The last admin is protected (docs/api.md §7) against two changes at once, each of which alone leaves
 * an admin: the check and the change are one step on the database, so the second waits and is refused.
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (name) => `the last admin under concurrent changes on ${name}`,
)) {
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    context.app = await startTestApp({ persistence: borrowed(context.persistence) });
    context.first = await context.app.seedAdmin();
    context.firstToken = (await context.app.login(context.first)).access_token;
  });
  test.after.each(({ app }) => app.close());
  test.after(() => target.dispose());

  /** A second admin, in the first's role, and its token. */
  async function secondAdmin({ app, first }: Context): Promise<{ id: string; token: string }> {
    const second = await app.createUser({ role: first.role });
    return { id: second.id, token: (await app.login(second)).access_token };
  }

  test('two admins demoting each other at once: one is refused, one admin is left', async (context) => {
    const { app, first, firstToken } = context;
    for (let round = 0; round < ROUNDS; round++) {
      const second = await secondAdmin(context);
      const answers = await Promise.all([
        app.request('PATCH', `/users/${second.id}`, { token: firstToken, body: { role: null } }),
        app.request('PATCH', `/users/${first.id}`, { token: second.token, body: { role: null } }),
      ]);
      assertOneRefused(answers);
      assert.is(await activeAdminCount(context.persistence), 1);
      if (answers[1].status === 200) {
        await app.request('PATCH', `/users/${first.id}`, { token: second.token, body: { role: first.role } });
      }
      await app.request('DELETE', `/users/${second.id}`, { token: firstToken });
    }
  });

  test('two admins suspending or deleting each other at once: one is refused', async (context) => {
    const { app, first, firstToken } = context;
    for (let round = 0; round < ROUNDS; round++) {
      const second = await secondAdmin(context);
      const answers = await Promise.all([
        app.request('DELETE', `/users/${second.id}`, { token: firstToken }),
        app.request('PATCH', `/users/${first.id}`, { token: second.token, body: { status: 'suspended' } }),
      ]);
      assertOneRefused(answers);
      const suspended = answers[1];
      assert.is(await activeAdminCount(context.persistence), 1);
      if (suspended.status === 200) {
        await app.request('PATCH', `/users/${first.id}`, { token: second.token, body: { status: 'active' } });
      }
      await app.request('DELETE', `/users/${second.id}`, { token: firstToken });
    }
  });

  test('the admin role deleted while the other admin role loses its access: one is refused', async (context) => {
    const { app, first, firstToken } = context;
    for (let round = 0; round < ROUNDS; round++) {
      const otherRole = (await app.createRole({ admin_access: true })).id;
      const other = await app.createUser({ role: otherRole });
      const otherToken = (await app.login(other)).access_token;
      const answers = await Promise.all([
        app.request('DELETE', `/roles/${first.role}`, { token: firstToken }),
        app.request('PATCH', `/roles/${otherRole}`, { token: otherToken, body: { admin_access: false } }),
      ]);
      assertOneRefused(answers);
      const deleted = answers[0];
      assert.is(await activeAdminCount(context.persistence), 1);
      if (deleted.status === 204) return; // the first admin's role is gone; the other role holds the admin
      await app.request('DELETE', `/users/${other.id}`, { token: firstToken });
      await app.request('DELETE', `/roles/${otherRole}`, { token: firstToken });
    }
  });

  test.run();
}
