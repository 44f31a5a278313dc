import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError } from './scenario.ts';

/**
 * `aggregate` and `groupBy` on GET (and SEARCH) /items/:collection (docs/api.md §4b) end to end, in both
 * response profiles and on every backend: the answer's shape, and that no aggregate reveals a row or a
 * value the caller may not read.
 */

const COLLECTION = 'agg_readings';
const ITEMS = `/items/${COLLECTION}`;

const FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'site', type: 'string' },
  { field: 'label', type: 'string' },
  { field: 'temperature', type: 'float' },
  { field: 'secret', type: 'integer' },
  { field: 'taken', type: 'date' },
];

const READINGS = [
  { id: 1, site: 'north', label: 'Alpha', temperature: 10, secret: 1, taken: '2024-01-15' },
  { id: 2, site: 'north', label: 'Beta', temperature: 20, secret: 2, taken: '2024-02-15' },
  { id: 3, site: 'south', label: 'Gamma', temperature: 30, secret: 3, taken: '2025-01-15' },
  { id: 4, site: 'south', label: 'Delta', temperature: 40, secret: 4, taken: '2025-03-15' },
  { id: 5, site: 'east', label: 'Alpha two', temperature: 50, secret: 5, taken: '2025-03-16' },
];

type Context = { app: TestApp; tokens: Record<'admin' | 'clerk' | 'partial', string> };

/** The answer's groups, unwrapped from the directus profile's `{ data }`. */
function groups(profile: string, body: unknown): unknown {
  return profile === 'directus' ? (body as { data: unknown }).data : body;
}

const q = (query: Record<string, string>) => new URLSearchParams(query).toString();

for (const profile of ['plain', 'directus']) {
  for (const [target, test] of suitePerBackend<Context>(
    backends(),
    (backend) => `aggregate and groupBy, ${profile} profile, on ${backend}`,
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
        return (groups(profile, response.body) as { access_token: string }).access_token;
      };
      const admin = await login(await app.seedAdmin());
      const asAdmin = async (method: string, path: string, body: unknown) => {
        const response = await app.request(method, path, { token: admin, body });
        assert.is(response.status, 200, `${method} ${path}: ${response.text}`);
      };
      await asAdmin('POST', '/collections', { collection: COLLECTION, fields: FIELDS });
      await asAdmin('POST', ITEMS, READINGS);
      const role = async (name: string, grants: ReadonlyArray<Record<string, unknown>>) => {
        const created = await app.createRole({ name });
        for (const grant of grants) {
          await asAdmin('POST', '/permissions', {
            role: created.id,
            collection: COLLECTION,
            action: 'read',
            ...grant,
          });
        }
        return login(await app.createUser({ role: created.id }));
      };
      const shown = ['id', 'site', 'label', 'temperature', 'taken'];
      context.tokens = {
        admin,
        // The clerk reads the north and the south, never the east, never `secret`.
        clerk: await role('Clerk', [{ permissions: { site: { _in: ['north', 'south'] } }, fields: shown }]),
        // The partial reader sees temperature on the north's rows only.
        partial: await role('Partial', [
          { permissions: { site: { _eq: 'north' } }, fields: shown },
          { permissions: { site: { _eq: 'south' } }, fields: ['id', 'site', 'label'] },
        ]),
      };
    });

    test.after(async ({ app }) => {
      await app.persistence.schemaEditor.dropCollection(COLLECTION);
      await app.close();
      await target.dispose();
    });

    const read = (app: TestApp, token: string, query: string) =>
      app.request('GET', `${ITEMS}?${query}`, { token });

    test('count, groupBy and the JSON form answer Directus-shaped groups', async ({ app, tokens }) => {
      const count = await read(app, tokens.admin, 'aggregate[count]=*');
      assert.is(count.status, 200, count.text);
      assert.equal(groups(profile, count.body), [{ count: 5 }]);
      if (profile === 'directus') assert.equal(Object.keys(count.body as object), ['data']);

      const bySite = await read(
        app,
        tokens.admin,
        q({ aggregate: '{"avg":["temperature"],"count":["*"]}', 'groupBy[]': 'site', sort: '-count' }),
      );
      assert.is(bySite.status, 200, bySite.text);
      assert.equal(groups(profile, bySite.body), [
        { site: 'north', avg: { temperature: 15 }, count: 2 },
        { site: 'south', avg: { temperature: 35 }, count: 2 },
        { site: 'east', avg: { temperature: 50 }, count: 1 },
      ]);

      const byYear = await read(
        app,
        tokens.admin,
        q({ 'aggregate[max]': 'temperature', groupBy: 'year(taken)', sort: '-year(taken)', limit: '1' }),
      );
      assert.equal(groups(profile, byYear.body), [{ taken_year: 2025, max: { temperature: 50 } }]);

      const searched = await app.request('SEARCH', ITEMS, {
        token: tokens.admin,
        body: {
          query: { aggregate: { sum: ['temperature'] }, groupBy: ['site'], filter: { id: { _lt: 3 } } },
        },
      });
      assert.is(searched.status, 200, searched.text);
      assert.equal(groups(profile, searched.body), [{ site: 'north', sum: { temperature: 30 } }]);
    });

    test('rows outside the read rule are not counted', async ({ app, tokens }) => {
      const count = await read(
        app,
        tokens.clerk,
        q({ 'aggregate[count]': '*', 'aggregate[sum]': 'temperature' }),
      );
      assert.is(count.status, 200, count.text);
      assert.equal(groups(profile, count.body), [{ count: 4, sum: { temperature: 100 } }]);
      const sites = await read(app, tokens.clerk, q({ groupBy: 'site' }));
      assert.equal(groups(profile, sites.body), [{ site: 'north' }, { site: 'south' }]);
    });

    test('filter and search pick the rows first, as on a list', async ({ app, tokens }) => {
      const searched = await read(app, tokens.clerk, q({ 'aggregate[count]': '*', search: 'alpha' }));
      assert.equal(groups(profile, searched.body), [{ count: 1 }]);
      const filtered = await read(
        app,
        tokens.clerk,
        q({ 'aggregate[count]': '*', 'filter[temperature][_gt]': '15' }),
      );
      assert.equal(groups(profile, filtered.body), [{ count: 3 }]);
    });

    test('a hidden field, or one shown on some rows only, is refused naming it', async ({ app, tokens }) => {
      for (const query of [
        'aggregate[sum]=secret',
        'aggregate[countDistinct]=secret',
        'aggregate[count]=*&groupBy=secret',
        'aggregate[count]=*&filter[secret][_gt]=1',
      ]) {
        assertError(await read(app, tokens.clerk, query), 403, 'FORBIDDEN', 'secret');
      }
      assertError(
        await read(app, tokens.partial, 'aggregate[avg]=temperature'),
        403,
        'FORBIDDEN',
        'temperature',
      );
      assertError(await read(app, tokens.partial, 'groupBy=temperature'), 403, 'FORBIDDEN', 'temperature');
      const count = await read(app, tokens.partial, 'aggregate[count]=*&groupBy=site');
      assert.is(count.status, 200, count.text);
      assert.equal(groups(profile, count.body), [
        { site: 'north', count: 2 },
        { site: 'south', count: 2 },
      ]);
      const anonymous = await app.request('GET', `${ITEMS}?aggregate[count]=*`);
      assert.is(anonymous.status, 401, anonymous.text);
    });

    test('bad aggregate input is 400 INVALID_QUERY, revealing no value', async ({ app, tokens }) => {
      for (const query of [
        'aggregate[median]=temperature',
        'aggregate[sum]=label',
        'aggregate[sum]=nope',
        'aggregate[sum]=*',
        'aggregate[count]=*,id',
        'aggregate[min]=temperature&groupBy=year(label)',
        'aggregate[count]=*&groupBy=hour(taken)',
        'aggregate[count]=*&groupBy=median(taken)',
        'aggregate[count]=*&meta=total_count',
        'aggregate[count]=*&fields=id',
        'aggregate[count]=*&groupBy=site&sort=temperature',
        `aggregate=${encodeURIComponent('{"count":')}`,
        `aggregate=${encodeURIComponent('["count"]')}`,
        'aggregate={}',
      ]) {
        const refused = await read(app, tokens.admin, query);
        assertError(refused, 400, 'INVALID_QUERY');
        assert.not.match(refused.text, /Alpha|Gamma|north|south/, query);
      }
    });

    test.run();
  }
}
