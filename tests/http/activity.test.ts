import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * docs/api.md §14 over HTTP on every backend: who changed what, confidential by default, and a revert
 * through the ordinary update.
 */

const COLLECTION = 'activity_cargos';
const ITEMS = `/items/${COLLECTION}`;

type Revision = {
  id: number;
  activity: number;
  item: string;
  data: Record<string, unknown>;
  delta: Record<string, unknown>;
};
type Entry = {
  id: number;
  action: string;
  user: string | null;
  item: string;
  ip: string | null;
  user_agent: string | null;
  origin: string | null;
};

type Context = {
  app: TestApp;
  admin: string;
  adminId: string;
  viewer: string;
  /** Revision ids by item and action, as the admin sees them. */
  revisions: Revision[];
};

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `activity and revisions over HTTP on ${backend}`,
)) {
  test.before.each(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has(COLLECTION)) {
      await persistence.schemaEditor.dropCollection(COLLECTION);
    }
    const app = await startTestApp({ persistence });
    context.app = app;
    const seeded = await app.seedAdmin();
    context.adminId = seeded.id;
    context.admin = (await app.login(seeded)).access_token;
    const asAdmin = async (method: string, path: string, body?: unknown) => {
      const response = await app.request(method, path, {
        token: context.admin,
        body,
        headers: { 'user-agent': 'activity-test/1', origin: 'https://ops.example' },
      });
      assert.ok(response.status < 300, `${method} ${path}: ${response.text}`);
      return response.body;
    };
    await asAdmin('POST', '/collections', {
      collection: COLLECTION,
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'name', type: 'string' },
        { field: 'owner', type: 'string' },
        { field: 'secret', type: 'string' },
      ],
    });
    await asAdmin('POST', ITEMS, [
      { id: 1, name: 'ice', owner: 'ann', secret: 's1' },
      { id: 2, name: 'fish', owner: 'bob', secret: 's2' },
    ]);
    await asAdmin('PATCH', `${ITEMS}/1`, { secret: 's1-new' });
    await asAdmin('PATCH', `${ITEMS}/2`, { name: 'cod' });
    // The viewer reads Ann's cargos but never `secret`, and may rename them.
    const role = await app.createRole({ name: 'Viewer' });
    const grant = (body: Record<string, unknown>) =>
      asAdmin('POST', '/permissions', { role: role.id, collection: COLLECTION, ...body });
    await grant({ action: 'read', permissions: { owner: { _eq: 'ann' } }, fields: ['id', 'name', 'owner'] });
    await grant({ action: 'update', permissions: { owner: { _eq: 'ann' } }, fields: ['name'] });
    context.viewer = (await app.login(await app.createUser({ role: role.id }))).access_token;
    context.revisions = ((await asAdmin('GET', '/revisions?sort=id&limit=1000')) as Revision[]).filter(
      (revision) => String((revision as unknown as { collection: string }).collection) === COLLECTION,
    );
  });

  test.after.each(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection(COLLECTION);
    await app.close();
  });
  test.after(() => target.dispose());

  test('every item write is an activity entry of its author, with address, user agent and origin', async ({
    app,
    admin,
    adminId,
  }) => {
    const response = await app.request(
      'GET',
      `/activity?filter[collection][_eq]=${COLLECTION}&sort=id&meta=*`,
      { token: admin },
    );
    assert.is(response.status, 200, response.text);
    const data = response.body as Entry[];
    assert.equal(
      data.map(({ action, item }) => `${action} ${item}`),
      ['create 1', 'create 2', 'update 1', 'update 2'],
    );
    assert.is(response.headers.get('x-filter-count'), '4');
    for (const entry of data) {
      assert.is(entry.user, adminId);
      assert.is(entry.user_agent, 'activity-test/1');
      assert.is(entry.origin, 'https://ops.example');
      assert.ok(entry.ip);
    }
    const one = await app.request('GET', `/activity/${data[2]!.id}?fields=action,item`, { token: admin });
    assert.equal(one.body, { action: 'update', item: '1' });
  });

  test('changes to the schema and the permissions are activity entries of the admin, naming the record', async ({
    app,
    admin,
    adminId,
  }) => {
    const response = await app.request(
      'GET',
      '/activity?filter[collection][_in]=datagate_collections,datagate_permissions&sort=id&fields=action,collection,item,user',
      { token: admin },
    );
    const entries = response.body as Array<{
      action: string;
      collection: string;
      item: string;
      user: string;
    }>;
    assert.equal(
      entries.map(({ action, collection, user }) => ({ action, collection, user })),
      [
        { action: 'create', collection: 'datagate_collections', user: adminId },
        { action: 'create', collection: 'datagate_permissions', user: adminId },
        { action: 'create', collection: 'datagate_permissions', user: adminId },
      ],
    );
    assert.is(entries[0]!.item, COLLECTION);
    const field = await app.request('POST', `/fields/${COLLECTION}`, {
      token: admin,
      body: { field: 'note', type: 'text' },
    });
    assert.is(field.status, 200, field.text);
    const fields = await app.request('GET', '/activity?filter[collection][_eq]=datagate_fields', {
      token: admin,
    });
    assert.equal(
      (fields.body as Entry[]).map(({ action, item }) => `${action} ${item}`),
      [`create ${COLLECTION}.note`],
    );
  });

  test('logins, logouts and refused refreshes of a session are entries of its user, with no secret', async ({
    app,
    admin,
    adminId,
  }) => {
    const user = await app.createUser();
    const pair = await app.login(user);
    const logout = await app.request('POST', '/auth/logout', { body: { refresh_token: pair.refresh_token } });
    assert.is(logout.status, 204);
    const refused = await app.request('POST', '/auth/refresh', {
      body: { refresh_token: pair.refresh_token },
    });
    assert.is(refused.status, 401);
    await app.request('POST', '/auth/refresh', { body: { refresh_token: 'never-issued' } });
    const response = await app.request(
      'GET',
      '/activity?filter[action][_in]=login,logout,refresh_failed&sort=id',
      { token: admin },
    );
    const entries = response.body as Entry[];
    assert.equal(
      entries.map(
        ({ action, user: who }) =>
          `${action} ${who === adminId ? 'admin' : who === user.id ? 'user' : 'viewer'}`,
      ),
      ['login admin', 'login viewer', 'login user', 'logout user', 'refresh_failed user'],
    );
    assert.not.match(response.text, new RegExp(`${pair.refresh_token}|${user.password}|${user.email}`));
  });

  test('revisions hold the item after and the fields written', async ({ revisions }) => {
    assert.equal(
      revisions.map(({ item, data, delta }) => ({ item, data, delta })),
      [
        {
          item: '1',
          data: { id: 1, name: 'ice', owner: 'ann', secret: 's1' },
          delta: { id: 1, name: 'ice', owner: 'ann', secret: 's1' },
        },
        {
          item: '2',
          data: { id: 2, name: 'fish', owner: 'bob', secret: 's2' },
          delta: { id: 2, name: 'fish', owner: 'bob', secret: 's2' },
        },
        {
          item: '1',
          data: { id: 1, name: 'ice', owner: 'ann', secret: 's1-new' },
          delta: { secret: 's1-new' },
        },
        { item: '2', data: { id: 2, name: 'cod', owner: 'bob', secret: 's2' }, delta: { name: 'cod' } },
      ],
    );
  });

  test('a caller sees only revisions of rows they may read, hidden fields stripped, counts included', async ({
    app,
    viewer,
    revisions,
  }) => {
    const response = await app.request('GET', '/revisions?sort=id&meta=*', { token: viewer });
    assert.is(response.status, 200, response.text);
    const data = response.body as Revision[];
    // The update of Ann's cargo wrote `secret` alone: the viewer is not told of it at all, where a revision
    // with an empty delta would tell them that a field they may not read changed.
    assert.equal(
      data.map(({ item, data, delta }) => ({ item, data, delta })),
      [
        {
          item: '1',
          data: { id: 1, name: 'ice', owner: 'ann' },
          delta: { id: 1, name: 'ice', owner: 'ann' },
        },
      ],
    );
    assert.is(response.headers.get('x-total-count'), '1');
    assert.is(response.headers.get('x-filter-count'), '1');
    const secretOnly = revisions.find(
      (revision) => revision.item === '1' && 'secret' in revision.delta && !('name' in revision.delta),
    )!;
    const unshown = await app.request('GET', `/revisions/${secretOnly.id}`, { token: viewer });
    assert.is(unshown.status, 404, 'a revision of hidden fields only is no revision to the viewer');
    const renamed = await app.request('PATCH', `${ITEMS}/1`, { token: viewer, body: { name: 'ice cube' } });
    assert.is(renamed.status, 200, renamed.text);
    const after = await app.request('GET', '/revisions?sort=id', { token: viewer });
    assert.equal(
      (after.body as Revision[]).map(({ delta }) => delta),
      [{ id: 1, name: 'ice', owner: 'ann' }, { name: 'ice cube' }],
      'an update that wrote a readable field is shown',
    );
    const hidden = revisions.find((revision) => revision.item === '2')!;
    const absent = await app.request('GET', `/revisions/${hidden.id}`, { token: viewer });
    const missing = await app.request('GET', '/revisions/999999999', { token: viewer });
    assert.is(absent.status, 404);
    assert.equal(absent.body, missing.body, 'a hidden revision answers exactly as a missing one');
    const searched = await app.request('GET', '/revisions?filter[item][_eq]=2&meta=*', { token: viewer });
    assert.equal(searched.body, []);
    assert.is(searched.headers.get('x-total-count'), '2');
    assert.is(searched.headers.get('x-filter-count'), '0');
    const activity = await app.request('GET', '/activity?meta=total_count', { token: viewer });
    const entries = activity.body as Entry[];
    assert.equal(
      entries.map((entry) => `${entry.action} ${entry.item}`),
      ['create 1', 'update 1'],
      'no entry of a hidden row, of an update of hidden fields only, nor of the system areas',
    );
    const anonymous = await app.request('GET', '/activity?meta=total_count');
    assert.equal(anonymous.body, []);
    assert.is(anonymous.headers.get('x-total-count'), '0');
  });

  test('a caller who may not read the key sees no history of the collection: entries name items by key', async ({
    app,
    admin,
  }) => {
    const role = await app.createRole({ name: 'Keyless' });
    const granted = await app.request('POST', '/permissions', {
      token: admin,
      body: { role: role.id, collection: COLLECTION, action: 'read', fields: ['name', 'owner'] },
    });
    assert.is(granted.status, 200, granted.text);
    const keyless = (await app.login(await app.createUser({ role: role.id }))).access_token;
    const listed = await app.request('GET', `${ITEMS}?sort=name`, { token: keyless });
    assert.equal(listed.body, [
      { name: 'cod', owner: 'bob' },
      { name: 'ice', owner: 'ann' },
    ]);
    for (const path of ['/activity?meta=total_count', '/revisions?meta=total_count']) {
      const history = await app.request('GET', path, { token: keyless });
      assert.equal(history.body, [], path);
      assert.is(history.headers.get('x-total-count'), '0', path);
    }
    const probe = await app.request('GET', '/activity?filter[item][_eq]=2&meta=filter_count', {
      token: keyless,
    });
    assert.equal(probe.body, []);
  });

  test('a revert restores the revision through the update, with its permissions', async ({
    app,
    admin,
    viewer,
    revisions,
  }) => {
    const fish = revisions.find((revision) => revision.item === '2')!;
    const reverted = await app.request('POST', `/utils/revert/${fish.id}`, { token: admin });
    assert.is(reverted.status, 200, reverted.text);
    assert.equal(reverted.body, { id: 2, name: 'fish', owner: 'bob', secret: 's2' });
    const latest = await app.request('GET', `/revisions?filter[item][_eq]=2&sort=-id&limit=1`, {
      token: admin,
    });
    assert.equal((latest.body as Revision[])[0]!.delta, {
      name: 'fish',
      owner: 'bob',
      secret: 's2',
    });

    const hidden = await app.request('POST', `/utils/revert/${fish.id}`, { token: viewer });
    assert.is(hidden.status, 404, 'a revision the caller cannot see');
    const ice = revisions.find((revision) => revision.item === '1')!;
    const refused = await app.request('POST', `/utils/revert/${ice.id}`, { token: viewer });
    // The whole of `data` the viewer reads is sent, as Directus does: `owner`, readable but not
    // updatable, refuses the revert although its value would not change; nothing is written.
    assert.is(refused.status, 403, 'the viewer may not write `owner`');
    assert.equal((refused.body as { errors: Array<{ extensions: unknown }> }).errors[0]!.extensions, {
      field: 'owner',
      code: 'FORBIDDEN',
    });
    const stored = await app.request('GET', `${ITEMS}/1`, { token: admin });
    assert.equal(stored.body, { id: 1, name: 'ice', owner: 'ann', secret: 's1-new' });
    assert.is((await app.request('POST', '/utils/revert/abc', { token: admin })).status, 404);
  });

  test('an admin sets what a collection records; writes then follow it', async ({ app, admin, viewer }) => {
    const count = async (path: string) => {
      const response = await app.request(
        'GET',
        `${path}?filter[collection][_eq]=${COLLECTION}&meta=filter_count&limit=0`,
        { token: admin },
      );
      return Number(response.headers.get('x-filter-count'));
    };
    const set = (accountability: unknown, token = admin) =>
      app.request('PATCH', `/collections/${COLLECTION}`, { token, body: { meta: { accountability } } });
    assert.is((await set('activity', viewer)).status, 403);
    assert.is((await set('everything')).status, 400);
    const activityOnly = await set('activity');
    assert.is(activityOnly.status, 200, activityOnly.text);
    assert.equal((activityOnly.body as { meta: unknown }).meta, {
      accountability: 'activity',
      realtime_watch: false,
    });
    await app.request('PATCH', `${ITEMS}/1`, { token: admin, body: { name: 'ice 2' } });
    assert.is(await count('/activity'), 5);
    assert.is(await count('/revisions'), 4);
    assert.is((await set(null)).status, 200);
    await app.request('PATCH', `${ITEMS}/1`, { token: admin, body: { name: 'ice 3' } });
    await app.request('DELETE', `${ITEMS}/2`, { token: admin });
    assert.is(await count('/activity'), 5);
    const read = await app.request('GET', `/collections/${COLLECTION}`, { token: admin });
    assert.equal((read.body as { meta: unknown }).meta, { accountability: null, realtime_watch: false });
    assert.is((await set('all')).status, 200);
    await app.request('DELETE', `${ITEMS}/1`, { token: admin });
    assert.is(await count('/activity'), 6);
  });

  test.run();
}
