import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError } from './scenario.ts';

/**
 * `fields=json(field, path)` (docs/api.md §4) end to end, in both response profiles and on every backend:
 * the value inside a json field under Directus's key, readable exactly where the field itself is.
 */

const COLLECTION = 'json_crates';
const ITEMS = `/items/${COLLECTION}`;

const FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'region', type: 'string' },
  { field: 'label', type: 'string' },
  { field: 'meta', type: 'json' },
  { field: 'secret', type: 'json' },
];

const CRATES = [
  {
    id: 1,
    region: 'north',
    label: 'Alpha',
    meta: { color: 'red', items: [{ name: 'bolt' }, { name: 'nut' }] },
    secret: { code: 1 },
  },
  { id: 2, region: 'south', label: 'Beta', meta: { color: 'blue', items: [] }, secret: { code: 2 } },
  { id: 3, region: 'south', label: 'Gamma', meta: null, secret: null },
];

type Context = { app: TestApp; tokens: Record<'admin' | 'clerk', string> };

/** The answer's items, unwrapped from the directus profile's `{ data }`. */
function items(profile: string, body: unknown): unknown {
  return profile === 'directus' ? (body as { data: unknown }).data : body;
}

for (const profile of ['plain', 'directus']) {
  for (const [target, test] of suitePerBackend<Context>(
    backends(),
    (backend) => `json(field, path) in fields, ${profile} profile, on ${backend}`,
  )) {
    test.before(async (context) => {
      const persistence = borrowed(await target.fresh());
      await persistence.schema.refresh();
      if (persistence.schema.current().collections.has(COLLECTION))
        await persistence.schemaEditor.dropCollection(COLLECTION);
      const app = await startTestApp({ persistence, env: { API_PROFILE: profile } });
      context.app = app;
      const login = async (user: { email: string; password: string }) => {
        const response = await app.request('POST', '/auth/login', {
          body: { email: user.email, password: user.password },
        });
        return (items(profile, response.body) as { access_token: string }).access_token;
      };
      const admin = { access_token: await login(await app.seedAdmin()) };
      const asAdmin = async (method: string, path: string, body: unknown) => {
        const response = await app.request(method, path, { token: admin.access_token, body });
        assert.is(response.status, 200, `${method} ${path}: ${response.text}`);
      };
      await asAdmin('POST', '/collections', { collection: COLLECTION, fields: FIELDS });
      await asAdmin('POST', ITEMS, CRATES);
      // The clerk reads id, region and label everywhere, meta on the south's rows only, never secret.
      const clerk = await app.createRole({ name: 'Clerk' });
      const grant = (body: Record<string, unknown>) =>
        asAdmin('POST', '/permissions', { role: clerk.id, collection: COLLECTION, action: 'read', ...body });
      await grant({ permissions: { region: { _eq: 'north' } }, fields: ['id', 'region', 'label'] });
      await grant({ permissions: { region: { _eq: 'south' } }, fields: ['id', 'region', 'label', 'meta'] });
      context.tokens = {
        admin: admin.access_token,
        clerk: await login(await app.createUser({ role: clerk.id })),
      };
    });

    test.after(async ({ app }) => {
      await app.persistence.schemaEditor.dropCollection(COLLECTION);
      await app.close();
      await target.dispose();
    });

    test('values inside a json field come back under {field}_{path}_json; a missing path is null', async ({
      app,
      tokens,
    }) => {
      const fields = 'id,json(meta, color),json(meta, items[1].name),json(meta,items[0])';
      const list = await app.request('GET', `${ITEMS}?sort=id&fields=${encodeURIComponent(fields)}`, {
        token: tokens.admin,
      });
      assert.is(list.status, 200, list.text);
      assert.equal(items(profile, list.body), [
        { id: 1, meta_color_json: 'red', meta_items_1_name_json: 'nut', meta_items_0_json: { name: 'bolt' } },
        { id: 2, meta_color_json: 'blue', meta_items_1_name_json: null, meta_items_0_json: null },
        { id: 3, meta_color_json: null, meta_items_1_name_json: null, meta_items_0_json: null },
      ]);
      const one = await app.request(
        'GET',
        `${ITEMS}/1?fields=${encodeURIComponent('json(meta, color),label')}`,
        {
          token: tokens.admin,
        },
      );
      assert.equal(items(profile, one.body), { meta_color_json: 'red', label: 'Alpha' });
      const all = await app.request(
        'GET',
        `${ITEMS}/2?fields=${encodeURIComponent('*,json(secret, code)')}`,
        {
          token: tokens.admin,
        },
      );
      assert.equal(items(profile, all.body), { ...CRATES[1], secret_code_json: 2 });
    });

    test('a write answers json() as a read does', async ({ app, tokens }) => {
      const path = `${ITEMS}/3?fields=${encodeURIComponent('id,json(meta, color)')}`;
      const patched = await app.request('PATCH', path, {
        token: tokens.admin,
        body: { meta: { color: 'green' } },
      });
      assert.is(patched.status, 200, patched.text);
      assert.equal(items(profile, patched.body), { id: 3, meta_color_json: 'green' });
      await app.request('PATCH', path, { token: tokens.admin, body: { meta: null } });
    });

    test('json() is masked where its field is, and refused where its field is', async ({ app, tokens }) => {
      const list = await app.request(
        'GET',
        `${ITEMS}?sort=id&fields=${encodeURIComponent('id,json(meta, color)')}`,
        {
          token: tokens.clerk,
        },
      );
      assert.is(list.status, 200, list.text);
      assert.equal(items(profile, list.body), [
        { id: 1, meta_color_json: null },
        { id: 2, meta_color_json: 'blue' },
        { id: 3, meta_color_json: null },
      ]);
      for (const fields of ['secret', 'json(secret, code)', '*,json(secret, code)']) {
        const refused = await app.request('GET', `${ITEMS}?fields=${encodeURIComponent(fields)}`, {
          token: tokens.clerk,
        });
        assertError(refused, 403, 'FORBIDDEN', 'secret');
        const one = await app.request('GET', `${ITEMS}/2?fields=${encodeURIComponent(fields)}`, {
          token: tokens.clerk,
        });
        assertError(one, 403, 'FORBIDDEN', 'secret');
      }
      const anonymous = await app.request(
        'GET',
        `${ITEMS}?fields=${encodeURIComponent('json(secret, code)')}`,
      );
      assert.is(anonymous.status, 401, anonymous.text);
    });

    test('json() on a field that is not json, a bad path, or in sort/filter is 400 INVALID_QUERY', async ({
      app,
      tokens,
    }) => {
      for (const query of [
        `fields=${encodeURIComponent('json(label, color)')}`,
        `fields=${encodeURIComponent('json(meta, items[*].name)')}`,
        `fields=${encodeURIComponent("json(meta, a'); drop table x; --)")}`,
        `fields=${encodeURIComponent('json(meta, a.b.c.d.e.f.g.h.i.j.k)')}`,
        `fields=${encodeURIComponent('json(meta, color')}`,
        `sort=${encodeURIComponent('json(meta, color)')}`,
        `filter=${encodeURIComponent('{"json(meta, color)":{"_eq":"red"}}')}`,
      ]) {
        assertError(
          await app.request('GET', `${ITEMS}?${query}`, { token: tokens.admin }),
          400,
          'INVALID_QUERY',
        );
      }
    });

    test('more json() entries than an item may have members is 400, not the 500 of a select too wide', async ({
      app,
      tokens,
    }) => {
      const search = (count: number) =>
        app.request('SEARCH', ITEMS, {
          token: tokens.admin,
          body: { query: { limit: 1, fields: Array.from({ length: count }, (_, n) => `json(meta, k${n})`) } },
        });
      const widest = await search(1600);
      assert.is(widest.status, 200, widest.text.slice(0, 200));
      const over = await search(1700);
      assertError(over, 400, 'INVALID_QUERY');
      assert.match(over.text, 'at most 1600');
    });

    test.run();
  }
}
