import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError } from './scenario.ts';

/**
 * A UUID names the same record in any case (PostgreSQL reads `…ABC…` and `…abc…` as one uuid), so the API
 * takes ids in paths and payloads in any case and hands them on lower case (docs/api.md §1): every backend
 * answers alike, and a cache keyed by id never holds a record under a second name that invalidating it by
 * its stored id would miss.
 */
type Context = { app: TestApp; admin: string; role: string; user: string; permission: string };

const upper = (id: string) => id.toUpperCase();

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `UUIDs in any case on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    const app = await startTestApp({ persistence });
    context.app = app;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    context.role = (await app.createRole({ name: 'Clerks' })).id;
    context.user = (await app.createUser({ role: context.role })).id;
    const collection = await app.request('POST', '/collections', {
      token: context.admin,
      body: {
        collection: 'parcels',
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
      },
    });
    assert.is(collection.status, 200, collection.text);
    const permission = await app.request('POST', '/permissions', {
      token: context.admin,
      body: { role: upper(context.role), collection: 'parcels', action: 'read', fields: ['id'] },
    });
    assert.is(permission.status, 200, permission.text);
    context.permission = (permission.body as { id: string; role: string }).id;
    assert.is((permission.body as { role: string }).role, context.role, 'the role id is stored lower case');
  });

  test.after(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection('parcels');
    await app.close();
    await target.dispose();
  });

  test('an id in upper case reads the record, which answers with its id in lower case', async (context) => {
    const { app, admin } = context;
    for (const [path, id] of [
      [`/roles/${upper(context.role)}`, context.role],
      [`/users/${upper(context.user)}`, context.user],
      [`/permissions/${upper(context.permission)}`, context.permission],
    ] as const) {
      const response = await app.request('GET', path, { token: admin });
      assert.is(response.status, 200, `${path}: ${response.text}`);
      assert.is((response.body as { id: string }).id, id, path);
    }
  });

  test('a role given in upper case in a payload is stored as its id', async ({ app, admin, role }) => {
    const created = await app.request('POST', '/users', {
      token: admin,
      body: { email: 'upper-case-role@example.com', password: 'a long enough password', role: upper(role) },
    });
    assert.is(created.status, 200, created.text);
    const user = created.body as { id: string; role: string };
    assert.is(user.role, role);
    const moved = await app.request('PATCH', `/users/${upper(user.id)}`, {
      token: admin,
      body: { role: upper(role) },
    });
    assert.is(moved.status, 200, moved.text);
    assert.is((moved.body as { role: string }).role, role);
  });

  test('a preview asked for by an id in upper case dies with its role like any other', async ({
    app,
    admin,
  }) => {
    const doomed = (await app.createRole({ name: 'Doomed in capitals' })).id;
    const preview = await app.request('POST', `/roles/${upper(doomed)}/preview`, { token: admin });
    assert.is(preview.status, 200, preview.text);
    const token = (preview.body as { access_token: string }).access_token;
    assertError(await app.request('GET', '/items/parcels', { token }), 403, 'FORBIDDEN');
    const deleted = await app.request('DELETE', `/roles/${doomed}`, { token: admin });
    assert.is(deleted.status, 204, deleted.text);
    assertError(await app.request('GET', '/items/parcels', { token }), 401, 'INVALID_TOKEN');
  });

  test.run();
}
