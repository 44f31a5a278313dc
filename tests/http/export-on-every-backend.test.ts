import * as assert from 'uvu/assert';
import { ExportItemsHandler } from '../../src/application/items/export-items.ts';
import { SYSTEM_ACCOUNTABILITY as ADMIN_CALLER } from '../../src/domain/accountability.ts';
import { backends } from '../support/databases.ts';
import { dropShippingCollections, startShippingApp } from '../support/shipping-app.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import type { TestApp } from '../support/test-app.ts';
import { assertError } from './scenario.ts';

/**
 * GET /items/:collection?export= (docs/api.md §13) on every backend, with two-row pages so that every
 * export crosses pages. The expected files are spelled out byte for byte: every backend answers the
 * same bytes. The shipping example (tests/support/shipping-schema.ts) gives relations and rules; the
 * `export_values` collection the values CSV must quote.
 */

type Context = { app: TestApp; tokens: Record<string, string> };

const VALUES = 'export_values';

const VALUE_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'label', type: 'string' },
  { field: 'note', type: 'text' },
  { field: 'ratio', type: 'float' },
  { field: 'price', type: 'decimal' },
  { field: 'flag', type: 'boolean' },
  { field: 'doc', type: 'json' },
];

const VALUE_ROWS = [
  {
    id: 1,
    label: 'comma, "quoted"',
    note: 'line1\nline2\r\nline3',
    ratio: 1.5,
    price: '1.10',
    flag: true,
    doc: { a: [1, 'x,y'] },
  },
  { id: 2, label: 'Ünïcødé ✓ 𝄞', note: '', ratio: null, price: null, flag: false, doc: null },
  {
    id: 3,
    label: null,
    note: ' lead/trail ',
    ratio: -0.25,
    price: '123456789012345678901234567890',
    flag: null,
    doc: 'just a string',
  },
];

const CRLF = '\r\n';

for (const [target, test] of suitePerBackend<Context>(backends(), (backend) => `export on ${backend}`)) {
  test.before(async (context) => {
    Object.assign(
      context,
      await startShippingApp(
        target,
        {
          // Light cargos only, without their secret; shipments without their customer.
          Clerk: [
            {
              collection: 'cargos',
              permissions: { weight: { _lt: 10 } },
              fields: ['id', 'label', 'weight', 'shipment'],
            },
            { collection: 'shipments', fields: ['id', 'number'] },
          ],
        },
        'plain',
        { EXPORT_PAGE_ROWS: '2' },
      ),
    );
    const { app, tokens } = context;
    const created = await app.request('POST', '/collections', {
      token: tokens.admin,
      body: { collection: VALUES, fields: VALUE_FIELDS },
    });
    assert.is(created.status, 200, created.text);
    const rows = await app.request('POST', `/items/${VALUES}`, { token: tokens.admin, body: VALUE_ROWS });
    assert.is(rows.status, 200, rows.text);
  });

  test.after(async ({ app }) => {
    const { schemaEditor, schema } = app.persistence;
    await schemaEditor.dropCollection(VALUES);
    await dropShippingCollections(schemaEditor, schema.current().collections);
    await app.close();
    await target.dispose();
  });

  /** The file's text (test-app's `request` would parse it as JSON). */
  const exported = async (context: Context, path: string, caller = 'admin') => {
    const response = await fetch(`${context.app.url}${path}`, {
      headers: { Authorization: `Bearer ${context.tokens[caller]}` },
    });
    const text = await response.text();
    assert.is(response.status, 200, `${path}: ${text}`);
    return text;
  };

  test('csv: a header of the fields, RFC 4180 quoting, values as the item API writes them', async (context) => {
    assert.is(
      await exported(context, `/items/${VALUES}?export=csv&sort=id`),
      [
        'id,label,note,ratio,price,flag,doc',
        '1,"comma, ""quoted""","line1\nline2\r\nline3",1.5,1.1,true,"{""a"": [1, ""x,y""]}"',
        '2,Ünïcødé ✓ 𝄞,"",,,false,',
        '3,, lead/trail ,-0.25,123456789012345678901234567890,,just a string',
        '',
      ].join(CRLF),
    );
  });

  test('json and ndjson: the items exactly as a list answers them', async (context) => {
    const list = await context.app.request('GET', `/items/${VALUES}?sort=-id`, {
      token: context.tokens.admin,
    });
    assert.is(await exported(context, `/items/${VALUES}?export=json&sort=-id`), list.text);
    const lines = (list.body as unknown[]).map((item) => `${JSON.stringify(item)}\n`);
    const ndjson = await exported(context, `/items/${VALUES}?export=ndjson&sort=-id`);
    assert.equal(
      ndjson
        .split('\n')
        .slice(0, -1)
        .map((line) => JSON.parse(line)),
      list.body,
    );
    assert.is(ndjson.split('\n').length, lines.length + 1);
    assert.is(
      ndjson,
      [
        '{"id":3,"label":null,"note":" lead/trail ","ratio":-0.25,"price":"123456789012345678901234567890","flag":null,"doc":"just a string"}',
        '{"id":2,"label":"Ünïcødé ✓ 𝄞","note":"","ratio":null,"price":null,"flag":false,"doc":null}',
        '{"id":1,"label":"comma, \\"quoted\\"","note":"line1\\nline2\\r\\nline3","ratio":1.5,"price":1.1,"flag":true,"doc":{"a": [1, "x,y"]}}',
        '',
      ].join('\n'),
    );
  });

  test('every page of a query: fields, filter, search, sort, nested fields as a list gives them', async (context) => {
    for (const query of [
      'sort=id',
      'fields=id,label&sort=-weight',
      'filter={"weight":{"_gt":2}}&sort=label',
      'search=e&sort=id',
      'fields=id,shipment.number,shipment.customer.name&sort=id',
      'fields=id,cargos.label&sort=-id',
      'sort=shipment.number,-id',
    ]) {
      const collection = query.includes('cargos.') ? 'shipments' : 'cargos';
      const list = await context.app.request('GET', `/items/${collection}?${query}`, {
        token: context.tokens.admin,
      });
      assert.is(await exported(context, `/items/${collection}?${query}&export=json`), list.text, query);
    }
  });

  test('csv: a nested object or array is its JSON text, in its own column', async (context) => {
    assert.is(
      await exported(context, '/items/shipments?export=csv&fields=number,customer.name,cargos.id&sort=id'),
      [
        'number,customer,cargos',
        'S-1,"{""name"":""ACME""}","[{""id"":1},{""id"":2}]"',
        'S-2,"{""name"":""Globex""}","[{""id"":3},{""id"":4}]"',
        'S-3,,[]',
        '',
      ].join(CRLF),
    );
  });

  test("the caller's rules: hidden rows and fields are absent, at every hop", async (context) => {
    assert.is(
      await exported(context, '/items/cargos?export=csv&sort=id', 'Clerk'),
      ['id,label,weight,shipment', '1,apples,3,1', '2,bolts,8,1', '4,drums,6,2', '5,eggs,1,', ''].join(CRLF),
    );
    assert.is(
      await exported(context, '/items/cargos?export=ndjson&fields=id,shipment.*&sort=id', 'Clerk'),
      [
        '{"id":1,"shipment":{"id":1,"number":"S-1"}}',
        '{"id":2,"shipment":{"id":1,"number":"S-1"}}',
        '{"id":4,"shipment":{"id":2,"number":"S-2"}}',
        '{"id":5,"shipment":null}',
        '',
      ].join('\n'),
    );
  });

  test('limit, offset and page apply to the whole export', async (context) => {
    const ids = async (query: string) =>
      (
        JSON.parse(await exported(context, `/items/cargos?export=json&fields=id&${query}`)) as {
          id: number;
        }[]
      ).map((item) => item.id);
    assert.equal(await ids('sort=-id&limit=3&offset=1'), [4, 3, 2]);
    assert.equal(await ids('sort=id&limit=2&page=2'), [3, 4]);
    assert.equal(await ids('sort=shipment.number,id&limit=4&offset=1'), [2, 3, 4, 5]);
    assert.equal(await ids('sort=id&limit=0'), []);
    assert.equal(await ids('sort=id&meta=*'), [1, 2, 3, 4, 5]);
  });

  test('an export of nothing: the header alone, an empty array, an empty file', async (context) => {
    const none = 'filter={"id":{"_lt":0}}';
    assert.is(await exported(context, `/items/cargos?export=csv&fields=id,label&${none}`), `id,label${CRLF}`);
    assert.is(await exported(context, `/items/cargos?export=json&${none}`), '[]');
    assert.is(await exported(context, `/items/cargos?export=ndjson&${none}`), '');
  });

  // Only a PostgreSQL server holds a snapshot (ItemStore.snapshot): PGlite's and memory's pages are each
  // read as the rows are then, which docs/api.md §13 says.
  if (target.name === 'postgresql') {
    test('one snapshot: a row changed mid-export is written once, as it was when the export began', async ({
      app,
      tokens,
    }) => {
      const admin = (method: string, path: string, body?: unknown) =>
        app.request(method, path, { token: tokens.admin!, body });
      const collection = 'export_snapshot';
      assert.is(
        (
          await admin('POST', '/collections', {
            collection,
            fields: [
              { field: 'id', type: 'integer', schema: { is_primary_key: true } },
              { field: 'rank', type: 'integer' },
            ],
          })
        ).status,
        200,
      );
      try {
        const rows = [1, 2, 3, 4].map((id) => ({ id, rank: id }));
        assert.is((await admin('POST', `/items/${collection}`, rows)).status, 200);
        const itemExport = await app.container
          .get(ExportItemsHandler)
          .open(ADMIN_CALLER, { collection, query: { export: 'json', sort: 'rank' } });
        try {
          const pages: string[] = [];
          for await (const page of itemExport.pages) {
            pages.push(page);
            if (pages.length > 1) continue;
            // The first page (ranks 1 and 2) is out: row 1 moves behind the rest, row 4 changes.
            assert.is((await admin('PATCH', `/items/${collection}/1`, { rank: 10 })).status, 200);
            assert.is((await admin('PATCH', `/items/${collection}/4`, { rank: 40 })).status, 200);
          }
          assert.equal(
            pages.flatMap((page) => JSON.parse(page) as unknown[]),
            rows,
          );
        } finally {
          await itemExport.close();
        }
      } finally {
        await app.persistence.schemaEditor.dropCollection(collection);
      }
    });
  }

  test('refusals are the list’s, as JSON, before any file', async (context) => {
    const { app, tokens } = context;
    const get = (path: string, token = tokens.admin) => app.request('GET', path, { token: token! });
    assertError(await get('/items/cargos?export=xml'), 400, 'INVALID_QUERY');
    assertError(await get('/items/cargos?export=csv&export=json'), 400, 'INVALID_QUERY');
    assertError(await get('/items/cargos?export=csv&filter={"nope":{"_eq":1}}'), 400, 'INVALID_QUERY');
    const hiddenList = await get('/items/customers', tokens.Clerk);
    const hiddenExport = await get('/items/customers?export=csv', tokens.Clerk);
    assert.is(hiddenExport.status, hiddenList.status);
    assert.equal(hiddenExport.body, hiddenList.body);
    const unknown = await get('/items/no_such_collection?export=csv', tokens.Clerk);
    assert.is(unknown.status, hiddenList.status);
    assert.is(
      (await get('/items/cargos?export=csv&fields=secret', tokens.Clerk)).status,
      (await get('/items/cargos?fields=secret', tokens.Clerk)).status,
    );
  });

  test.run();
}
