import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { seedRows } from '../support/seed-rows.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError } from './scenario.ts';

const SHIPMENT_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'label', type: 'string' },
  { field: 'weight', type: 'float' },
  { field: 'is_deleted', type: 'boolean', schema: { is_nullable: false, default_value: false } },
];

/** Ties and nulls in `weight`; every third row deleted, which the clerk's rule hides. */
const ROWS = Array.from({ length: 14 }, (_, index) => ({
  id: index + 1,
  label: `shipment ${String(index + 1).padStart(2, '0')}`,
  weight: index % 5 === 4 ? null : (index % 4) * 10,
  is_deleted: index % 3 === 2,
}));

/** The clerk reads labels and weights of shipments not deleted — not even the primary key. */
const CLERK_FIELDS = ['label', 'weight'];

type Context = { app: TestApp; admin: string; clerk: string };

for (const [target, pages] of suitePerBackend<Context>(
  backends(),
  (backend) => `keyset pages and estimated counts over HTTP on ${backend}`,
)) {
  pages.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    for (const name of ['shipments', 'parcels']) {
      if (persistence.schema.current().collections.has(name))
        await persistence.schemaEditor.dropCollection(name);
    }
    context.app = await startTestApp({ persistence });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
    for (const collection of ['shipments', 'parcels']) {
      const created = await context.app.request('POST', '/collections', {
        token: context.admin,
        body: { collection, fields: SHIPMENT_FIELDS },
      });
      assert.is(created.status, 200, created.text);
      await seedRows(persistence, collection, ROWS);
    }
    const role = await context.app.createRole({ name: 'Clerk' });
    const permission = await context.app.request('POST', '/permissions', {
      token: context.admin,
      body: {
        role: role.id,
        collection: 'shipments',
        action: 'read',
        permissions: { is_deleted: { _eq: false } },
        fields: CLERK_FIELDS,
      },
    });
    assert.is(permission.status, 200, permission.text);
    context.clerk = (await context.app.login(await context.app.createUser({ role: role.id }))).access_token;
  });
  pages.after(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection('shipments');
    await app.persistence.schemaEditor.dropCollection('parcels');
    await app.close();
    await target.dispose();
  });

  const get = (app: TestApp, token: string, query: string, collection = 'shipments') =>
    app.request('GET', `/items/${collection}${query}`, { token });
  const labels = (body: unknown) => (body as Array<{ label: string }>).map((item) => item.label);

  /** Every label of a cursor walk in the plain profile (`X-Next-Cursor`), and how many pages it took. */
  async function walk(app: TestApp, token: string, query: string) {
    const seen: string[] = [];
    let after = '';
    for (let page = 1; page <= 50; page += 1) {
      const response = await get(app, token, `?meta=next&${query}${after}`);
      assert.is(response.status, 200, response.text);
      seen.push(...labels(response.body));
      const next = response.headers.get('x-next-cursor');
      if (next === null) return { seen, pages: page };
      assert.match(next, /^[A-Za-z0-9_-]+$/);
      after = `&after=${next}`;
    }
    throw new Error('the walk did not end');
  }

  pages(
    'a cursor walk answers the same rows as one unpaged read, for a caller who cannot read the key',
    async ({ app, admin, clerk }) => {
      for (const sort of ['', '&sort=-weight', '&sort=weight,-label', '&sort=-id']) {
        for (const [token, fields] of [
          [clerk, '&fields=label'],
          [admin, '&fields=label,weight'],
        ] as const) {
          if (token === clerk && sort.includes('id')) continue;
          const whole = await get(app, token, `?limit=-1${sort}${fields}`.replace('limit=-1', 'limit=1000'));
          const { seen, pages } = await walk(app, token, `limit=3${sort}${fields}`);
          assert.equal(seen, labels(whole.body), sort);
          assert.is(
            pages,
            Math.floor(seen.length / 3) + 1,
            'a short page is the last; a full one may be followed by []',
          );
        }
      }
      const clerkRows = await walk(app, clerk, 'limit=4&sort=weight');
      assert.is(clerkRows.seen.length, ROWS.filter((row) => !row.is_deleted).length);
    },
  );

  pages(
    'a cursor pages a sort naming more than 100 fields (PostgreSQL functions take 100 arguments)',
    async ({ app, admin }) => {
      const columns = Array.from({ length: 110 }, (_, n) => `c${n}`);
      const created = await app.request('POST', '/collections', {
        token: admin,
        body: {
          collection: 'wide_rows',
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true } },
            ...columns.map((field) => ({ field, type: 'integer' })),
          ],
        },
      });
      assert.is(created.status, 200, created.text);
      try {
        await seedRows(
          app.persistence,
          'wide_rows',
          [3, 1, 2].map((id) => ({
            id,
            ...Object.fromEntries(columns.map((c, n) => [c, n === 109 ? -id : 0])),
          })),
        );
        const seen: number[] = [];
        let after = '';
        for (let page = 1; page <= 5; page += 1) {
          const response = await get(
            app,
            admin,
            `?fields=id&limit=1&meta=next&sort=${columns}${after}`,
            'wide_rows',
          );
          assert.is(response.status, 200, response.text);
          seen.push(...(response.body as Array<{ id: number }>).map((row) => row.id));
          const next = response.headers.get('x-next-cursor');
          if (!next) break;
          after = `&after=${next}`;
        }
        assert.equal(seen, [3, 2, 1]);
      } finally {
        await app.persistence.schemaEditor.dropCollection('wide_rows');
      }
    },
  );

  pages('a forged, altered or foreign cursor is 400 INVALID_QUERY', async ({ app, admin, clerk }) => {
    const first = await get(app, clerk, '?meta=next&limit=2&sort=-weight&filter[weight][_gte]=0');
    const cursor = first.headers.get('x-next-cursor')!;
    assert.ok(cursor);
    const altered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    const refusals = [
      `?after=${'A'.repeat(60)}&limit=2&sort=-weight&filter[weight][_gte]=0`,
      `?after=${altered}&limit=2&sort=-weight&filter[weight][_gte]=0`,
      `?after=${cursor}x&limit=2&sort=-weight&filter[weight][_gte]=0`,
      `?after=not%20base64&limit=2&sort=-weight&filter[weight][_gte]=0`,
      // The same cursor for another sort, filter, search or collection.
      `?after=${cursor}&limit=2&sort=weight&filter[weight][_gte]=0`,
      `?after=${cursor}&limit=2&sort=-weight,label&filter[weight][_gte]=0`,
      `?after=${cursor}&limit=2&sort=-weight&filter[weight][_gte]=10`,
      `?after=${cursor}&limit=2&sort=-weight`,
      `?after=${cursor}&limit=2&sort=-weight&filter[weight][_gte]=0&search=ship`,
      // Not beside an offset or a page.
      `?after=${cursor}&limit=2&sort=-weight&filter[weight][_gte]=0&offset=2`,
      `?after=${cursor}&limit=2&sort=-weight&filter[weight][_gte]=0&page=2`,
    ];
    for (const query of refusals) assertError(await get(app, clerk, query), 400, 'INVALID_QUERY');
    assertError(
      await get(app, admin, `?after=${cursor}&limit=2&sort=-weight&filter[weight][_gte]=0`, 'parcels'),
      400,
      'INVALID_QUERY',
    );
    // The page size and the fields shown may change between pages.
    const resumed = await get(
      app,
      clerk,
      `?after=${cursor}&limit=5&sort=-weight&filter[weight][_gte]=0&fields=label`,
    );
    assert.is(resumed.status, 200, resumed.text);
  });

  pages("a cursor never widens the rows beyond the caller's rule", async ({ app, admin, clerk }) => {
    // The admin's cursor sits on a deleted row; the clerk resuming from it still sees only what the rule shows.
    const adminPage = await get(app, admin, '?meta=next&limit=3&sort=id&fields=id,is_deleted');
    const ids = (adminPage.body as Array<{ id: number; is_deleted: boolean }>).map((item) => item.id);
    assert.equal(ids, [1, 2, 3]);
    const cursor = adminPage.headers.get('x-next-cursor')!;
    const clerkPage = await get(app, clerk, `?after=${cursor}&limit=100&sort=id`);
    assertError(clerkPage, 403, 'FORBIDDEN');
    const clerkWalk = await get(app, admin, `?after=${cursor}&limit=100&sort=id&fields=label`);
    assert.equal(
      labels(clerkWalk.body),
      ROWS.slice(3).map((row) => row.label),
    );
    const defaultOrder = await get(app, admin, '?meta=next&limit=3&fields=label');
    const resumed = await get(app, clerk, `?after=${defaultOrder.headers.get('x-next-cursor')}&limit=100`);
    assert.is(resumed.status, 200, resumed.text);
    assert.equal(
      labels(resumed.body),
      ROWS.slice(3)
        .filter((row) => !row.is_deleted)
        .map((row) => row.label),
    );
    for (const item of resumed.body as Array<Record<string, unknown>>)
      assert.equal(Object.keys(item), CLERK_FIELDS);
  });

  pages(
    'the directus profile puts the cursor and the estimates in meta; next is null after the last page',
    async ({ app, admin }) => {
      const directus = await startTestApp({
        persistence: borrowed(app.persistence),
        env: { API_PROFILE: 'directus' },
      });
      try {
        // Same secret, same database: the plain app's token works here too.
        const token = admin;
        type Page = { data: Array<{ label: string }>; meta: Record<string, unknown> };
        const first = await directus.request(
          'GET',
          '/items/shipments?meta=next,total_count&limit=10&fields=label',
          {
            token,
          },
        );
        assert.is(first.status, 200, first.text);
        const body = first.body as Page;
        assert.is(body.data.length, 10);
        assert.is(body.meta.total_count, ROWS.length);
        assert.type(body.meta.next, 'string');
        const last = await directus.request(
          'GET',
          `/items/shipments?meta=next&limit=10&fields=label&after=${body.meta.next}`,
          { token },
        );
        assert.equal((last.body as Page).data.length, 4);
        assert.equal((last.body as Page).meta, { next: null });
        const estimated = await directus.request(
          'GET',
          '/items/shipments?meta=estimated_total_count,estimated_filter_count&filter[weight][_null]=true&limit=1',
          { token },
        );
        const meta = (estimated.body as Page).meta;
        assert.equal(Object.keys(meta).sort(), ['estimated_filter_count', 'estimated_total_count']);
        for (const value of Object.values(meta)) assert.ok(Number.isInteger(value) && (value as number) >= 0);
      } finally {
        await directus.close();
      }
    },
  );

  pages('estimated counts come as their own headers, only when asked', async ({ app, clerk }) => {
    const plain = await get(app, clerk, '?meta=*&limit=1');
    assert.is(plain.headers.get('x-estimated-total-count'), null);
    const estimated = await get(
      app,
      clerk,
      '?meta=estimated_total_count,estimated_filter_count&limit=1&filter[weight][_gt]=0',
    );
    assert.is(estimated.status, 200, estimated.text);
    assert.is(estimated.headers.get('x-total-count'), null);
    for (const header of ['x-estimated-total-count', 'x-estimated-filter-count']) {
      assert.match(estimated.headers.get(header) ?? '', /^\d+$/, header);
    }
  });

  pages(
    "under a row rule an estimate is the exact count: the planner's statistics include the hidden rows",
    async ({ app, admin, clerk }) => {
      const visible = ROWS.filter((row) => !row.is_deleted);
      const onlyHidden = ROWS.filter((row) => row.is_deleted).map((row) => row.label);
      const cases = [
        { filter: 'filter[weight][_gt]=0', count: visible.filter((row) => (row.weight ?? 0) > 0).length },
        { filter: `filter[label][_in]=${onlyHidden.join(',')}`, count: 0 },
        { filter: 'filter[label][_starts_with]=shipment', count: visible.length },
      ];
      for (const { filter, count } of cases) {
        const estimated = await get(
          app,
          clerk,
          `?meta=estimated_total_count,estimated_filter_count&limit=1&${filter}`,
        );
        assert.is(estimated.status, 200, estimated.text);
        assert.is(estimated.headers.get('x-total-count'), null, filter);
        assert.is(estimated.headers.get('x-filter-count'), null, filter);
        assert.is(estimated.headers.get('x-estimated-total-count'), String(visible.length), filter);
        assert.is(estimated.headers.get('x-estimated-filter-count'), String(count), filter);
        const both = await get(app, clerk, `?meta=*,estimated_filter_count&limit=1&${filter}`);
        assert.is(both.headers.get('x-total-count'), String(visible.length), filter);
        assert.is(both.headers.get('x-filter-count'), String(count), filter);
        assert.is(both.headers.get('x-estimated-filter-count'), String(count), filter);
        assert.is(both.headers.get('x-estimated-total-count'), null, filter);
      }
      const unruled = await get(app, admin, '?meta=estimated_total_count,estimated_filter_count&limit=1');
      assert.is(unruled.headers.get('x-total-count'), null);
      for (const header of ['x-estimated-total-count', 'x-estimated-filter-count']) {
        assert.match(unruled.headers.get(header) ?? '', /^\d+$/, header);
      }
    },
  );

  pages.run();
}
