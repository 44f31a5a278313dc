import * as assert from 'uvu/assert';
import { FILES_TABLE } from '../../src/adapters/persistence/memory/in-memory-files-table.ts';
import { FILES_COLLECTION } from '../../src/domain/schema/collection-schema.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

type Context = { app: TestApp; admin: string; clerk: string; clerkRole: string };

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64)]);

/** GET /files with the query string of the SEARCH body the test sends. */
const LISTED = '/files?filter[title][_starts_with]=searched-&sort=title&fields=id,title';

async function uploaded(app: TestApp, token: string, title: string): Promise<string> {
  const body = new FormData();
  body.append('title', title);
  body.append('file', new Blob([PNG], { type: 'image/png' }), `${title}.png`);
  const response = await fetch(`${app.url}/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body,
  });
  assert.is(response.status, 200);
  return ((await response.json()) as { id: string }).id;
}

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `datagate_files as a governed collection on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has('cargos'))
      await persistence.schemaEditor.dropCollection('cargos');
    context.app = await startTestApp({ persistence });
    const { app } = context;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const role = await app.createRole({ name: 'Clerks' });
    context.clerkRole = role.id;
    context.clerk = (await app.login(await app.createUser({ role: role.id }))).access_token;
  });
  test.after(async ({ app, admin }) => {
    await app.request('DELETE', '/collections/cargos', { token: admin });
    await app.close();
    await target.dispose();
  });

  test('the catalog presents the files table as the memory twin describes it', async ({ app }) => {
    assert.equal(app.persistence.schema.current().collections.get(FILES_COLLECTION), FILES_TABLE);
  });

  test('files stay a system collection: /items, /collections and /fields refuse it', async ({
    app,
    admin,
    clerk,
  }) => {
    const cases: Array<[string, string, string, unknown, number]> = [
      ['list as items (admin)', admin, 'GET /items/datagate_files', undefined, 404],
      ['list as items (user)', clerk, 'GET /items/datagate_files', undefined, 403],
      ['create as items', admin, 'POST /items/datagate_files', { filename_download: 'x' }, 404],
      ['read as a collection', admin, 'GET /collections/datagate_files', undefined, 404],
      [
        'create as a collection',
        admin,
        'POST /collections',
        { collection: 'datagate_files', fields: [] },
        400,
      ],
      ['drop as a collection', admin, 'DELETE /collections/datagate_files', undefined, 404],
      ['add a field', admin, 'POST /fields/datagate_files', { field: 'extra', type: 'string' }, 404],
    ];
    for (const [name, token, route, body, status] of cases) {
      const [method, path] = route.split(' ') as [string, string];
      const answer = await app.request(method, path, { token, ...(body === undefined ? {} : { body }) });
      assert.is(answer.status, status, `${name}: ${answer.text}`);
    }
    const listed = (await app.request('GET', '/collections', { token: admin })).body as Array<{
      collection: string;
    }>;
    assert.not.ok(listed.some((collection) => collection.collection === FILES_COLLECTION));
  });

  test('permissions on datagate_files are accepted and checked against its fields; other system collections are not', async ({
    app,
    admin,
    clerkRole,
  }) => {
    const cases: Array<[string, Record<string, unknown>, number, string | null]> = [
      [
        'read with a row filter',
        { action: 'read', permissions: { type: { _starts_with: 'image/' } }, fields: ['*'] },
        200,
        null,
      ],
      ['an unknown field', { action: 'read', fields: ['nope'] }, 400, 'fields'],
      [
        'a filter on an unknown field',
        { action: 'create', validation: { nope: { _eq: 1 } }, fields: ['*'] },
        400,
        'validation',
      ],
    ];
    for (const [name, body, status, field] of cases) {
      const answer = await app.request('POST', '/permissions', {
        token: admin,
        body: { role: clerkRole, collection: FILES_COLLECTION, ...body },
      });
      assert.is(answer.status, status, `${name}: ${answer.text}`);
      if (field)
        assert.is(
          (answer.body as { errors: [{ extensions: { field: string } }] }).errors[0].extensions.field,
          field === 'validation' ? 'validation' : 'fields',
        );
    }
    const users = await app.request('POST', '/permissions', {
      token: admin,
      body: { role: clerkRole, collection: 'datagate_users', action: 'read', fields: ['*'] },
    });
    assert.is(users.status, 400);
  });

  test('an item points at a file; fields=photo.* reads it with the files rule at that hop', async (context) => {
    const { app, admin } = context;
    const role = await app.createRole({ name: 'Viewers' });
    const viewer = (await app.login(await app.createUser({ role: role.id }))).access_token;
    const created = await app.request('POST', '/collections', {
      token: admin,
      body: {
        collection: 'cargos',
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true } },
          { field: 'label', type: 'string' },
          { field: 'photo', type: 'uuid' },
        ],
      },
    });
    assert.is(created.status, 200, created.text);
    const relation = await app.request('POST', '/relations', {
      token: admin,
      body: { collection: 'cargos', field: 'photo', related_collection: FILES_COLLECTION },
    });
    assert.is(relation.status, 200, relation.text);
    const shown = await uploaded(app, admin, 'shown');
    const hidden = await uploaded(app, admin, 'hidden');
    const rows = [
      { id: 1, label: 'a', photo: shown },
      { id: 2, label: 'b', photo: hidden },
    ];
    assert.is((await app.request('POST', '/items/cargos', { token: admin, body: rows })).status, 200);
    for (const body of [
      { collection: 'cargos', action: 'read', fields: ['*'] },
      {
        collection: FILES_COLLECTION,
        action: 'read',
        fields: ['id', 'title'],
        permissions: { title: { _eq: 'shown' } },
      },
    ]) {
      const granted = await app.request('POST', '/permissions', {
        token: admin,
        body: { role: role.id, ...body },
      });
      assert.is(granted.status, 200, granted.text);
    }
    const read = await app.request('GET', '/items/cargos?fields=id,photo.*&sort=id', { token: viewer });
    assert.is(read.status, 200, read.text);
    assert.equal(read.body, [
      { id: 1, photo: { id: shown, title: 'shown' } },
      { id: 2, photo: null },
    ]);
    const dangling = await app.request('POST', '/items/cargos', {
      token: admin,
      body: { id: 3, label: 'c', photo: '0190a3c4-0000-7000-8000-000000000000' },
    });
    assert.is(dangling.status, 400, dangling.text);
    const stillReferenced = await app.request('DELETE', `/files/${shown}`, { token: admin });
    assert.is(stillReferenced.status, 400, stillReferenced.text);
    assert.is(
      (await fetch(`${app.url}/assets/${shown}`, { headers: { Authorization: `Bearer ${admin}` } })).status,
      200,
    );
  });

  test('SEARCH /files lists as GET /files does, the query in the body, within the read permission', async ({
    app,
    admin,
    clerk,
  }) => {
    const first = await uploaded(app, admin, 'searched-one');
    await uploaded(app, admin, 'searched-two');
    const query = {
      filter: { title: { _starts_with: 'searched-' } },
      sort: ['title'],
      fields: ['id', 'title'],
    };
    const searched = await app.request('SEARCH', '/files', { token: admin, body: { query } });
    assert.is(searched.status, 200, searched.text);
    assert.equal(
      (searched.body as Array<{ title: string }>).map(({ title }) => title),
      ['searched-one', 'searched-two'],
    );
    assert.equal(
      (searched.body as unknown[])[0],
      { id: first, title: 'searched-one' },
      'fields shapes the rows',
    );
    const listed = await app.request('GET', LISTED, {
      token: admin,
    });
    assert.equal(searched.body, listed.body);
    // Within the caller's own read permission, as its GET.
    const asClerk = await app.request('SEARCH', '/files', { token: clerk, body: { query } });
    const clerkListed = await app.request('GET', LISTED, { token: clerk });
    assert.is(asClerk.status, clerkListed.status);
    assert.equal(asClerk.body, clerkListed.body);
    const malformed = await app.request('SEARCH', '/files', { token: admin, body: { query: [1] } });
    assert.is(malformed.status, 400);
  });

  test('a file write records its activity and revision, as an item write does', async ({ app, admin }) => {
    const id = await uploaded(app, admin, 'audited');
    const activity = await app.request(
      'GET',
      `/activity?filter[collection][_eq]=${FILES_COLLECTION}&filter[item][_eq]=${id}`,
      { token: admin },
    );
    assert.is(activity.status, 200, activity.text);
    assert.equal(
      (activity.body as Array<{ action: string }>).map((entry) => entry.action),
      ['create'],
    );
  });

  test.run();
}
