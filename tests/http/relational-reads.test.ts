import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { dropShippingCollections, payload, startShippingApp } from '../support/shipping-app.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import type { TestApp } from '../support/test-app.ts';
import { assertError } from './scenario.ts';

/**
 * Nested reads, `deep`, filters and sorts across relations (docs/api.md §4) end to end, in both response
 * profiles and on every backend: customers ← shipments ← cargos (tests/support/shipping-schema.ts). The
 * permission cases are the leak matrix's (tests/security/relational-leak-matrix.test.ts).
 */

type Context = { app: TestApp; tokens: Record<string, string> };

for (const profile of ['plain', 'directus']) {
  for (const [target, test] of suitePerBackend<Context>(
    backends(),
    (backend) => `relational reads, ${profile} profile, on ${backend}`,
  )) {
    test.before(async (context) => {
      Object.assign(context, await startShippingApp(target, {}, profile));
    });

    test.after(async ({ app }) => {
      const { schemaEditor, schema } = app.persistence;
      await dropShippingCollections(schemaEditor, schema.current().collections);
      await app.close();
      await target.dispose();
    });

    const read = async (context: Context, path: string) => {
      const response = await context.app.request('GET', path, { token: context.tokens.admin });
      assert.is(response.status, 200, `${path}: ${response.text}`);
      return payload(profile, response.body);
    };

    test('many-to-one: the related row as an object, null where there is none; the key alone stays the key', async (context) => {
      assert.equal(
        await read(context, '/items/cargos?fields=id,shipment.number,shipment.customer.name&sort=id'),
        [
          { id: 1, shipment: { number: 'S-1', customer: { name: 'ACME' } } },
          { id: 2, shipment: { number: 'S-1', customer: { name: 'ACME' } } },
          { id: 3, shipment: { number: 'S-2', customer: { name: 'Globex' } } },
          { id: 4, shipment: { number: 'S-2', customer: { name: 'Globex' } } },
          { id: 5, shipment: null },
        ],
      );
      assert.equal(await read(context, '/items/shipments?fields=id,customer.*&sort=id'), [
        { id: 1, customer: { id: 1, name: 'ACME', secret: 'acme-secret' } },
        { id: 2, customer: { id: 2, name: 'Globex', secret: 'globex-secret' } },
        { id: 3, customer: null },
      ]);
      assert.equal(await read(context, '/items/cargos?fields=id,shipment&sort=id&limit=2'), [
        { id: 1, shipment: 1 },
        { id: 2, shipment: 1 },
      ]);
    });

    test('one-to-many: keys alone, objects with sub-fields, [] when none, primary-key order', async (context) => {
      assert.equal(await read(context, '/items/shipments?fields=id,cargos&sort=id'), [
        { id: 1, cargos: [1, 2] },
        { id: 2, cargos: [3, 4] },
        { id: 3, cargos: [] },
      ]);
      assert.equal(
        await read(context, '/items/customers?fields=name,shipments.number,shipments.cargos.label&sort=id'),
        [
          { name: 'ACME', shipments: [{ number: 'S-1', cargos: [{ label: 'apples' }, { label: 'bolts' }] }] },
          {
            name: 'Globex',
            shipments: [{ number: 'S-2', cargos: [{ label: 'cables' }, { label: 'drums' }] }],
          },
        ],
      );
    });

    test('*.*: own columns, each many-to-one in its column, then the one-to-manys; * alone stays flat', async (context) => {
      assert.equal(await read(context, '/items/shipments/1?fields=*.*'), {
        id: 1,
        number: 'S-1',
        customer: { id: 1, name: 'ACME', secret: 'acme-secret' },
        cargos: [
          { id: 1, label: 'apples', weight: 3, secret: 'c1', shipment: 1 },
          { id: 2, label: 'bolts', weight: 8, secret: 'c2', shipment: 1 },
        ],
      });
      assert.equal(await read(context, '/items/shipments/1'), { id: 1, number: 'S-1', customer: 1 });
    });

    test('deep: filter, sort, limit and offset of a one-to-many, JSON or bracket form', async (context) => {
      const bracket = await read(
        context,
        '/items/shipments?fields=id,cargos.label&sort=id&deep[cargos][_filter][weight][_gt]=5&deep[cargos][_sort]=-weight&deep[cargos][_limit]=1',
      );
      assert.equal(bracket, [
        { id: 1, cargos: [{ label: 'bolts' }] },
        { id: 2, cargos: [{ label: 'cables' }] },
        { id: 3, cargos: [] },
      ]);
      const deep = encodeURIComponent('{"cargos":{"_sort":["-weight"],"_offset":1}}');
      assert.equal(await read(context, `/items/shipments?fields=id,cargos&sort=id&deep=${deep}`), [
        { id: 1, cargos: [1] },
        { id: 2, cargos: [4] },
        { id: 3, cargos: [] },
      ]);
    });

    test('filters across relations: many-to-one paths, _some, _none and the bare form', async (context) => {
      const ids = async (path: string) =>
        ((await read(context, `${path}&fields=id&sort=id`)) as Array<{ id: number }>).map(({ id }) => id);
      assert.equal(await ids('/items/cargos?filter[shipment][customer][name][_eq]=ACME'), [1, 2]);
      assert.equal(await ids('/items/cargos?filter[shipment][_null]=true'), [5]);
      assert.equal(await ids('/items/shipments?filter[cargos][_some][weight][_gt]=10'), [2]);
      assert.equal(await ids('/items/shipments?filter[cargos][weight][_gt]=10'), [2]);
      assert.equal(await ids('/items/shipments?filter[cargos][_none][weight][_gt]=10'), [1, 3]);
      assert.equal(
        await ids(
          `/items/customers?filter=${encodeURIComponent('{"shipments":{"cargos":{"label":{"_eq":"drums"}}}}')}`,
        ),
        [2],
      );
    });

    test('aggregates count the rows a filter across relations picks', async (context) => {
      const acme = await read(
        context,
        '/items/cargos?aggregate[count]=*&filter[shipment][customer][name][_eq]=ACME',
      );
      assert.equal(acme, [{ count: 2 }]);
      const heavy = await read(
        context,
        '/items/shipments?aggregate[count]=*&filter[cargos][_some][weight][_gt]=5',
      );
      assert.equal(heavy, [{ count: 2 }]);
    });

    test('sort through many-to-one hops: nulls last ascending, first descending, ties by key', async (context) => {
      const ids = async (sort: string) =>
        ((await read(context, `/items/cargos?fields=id&sort=${sort}`)) as Array<{ id: number }>).map(
          ({ id }) => id,
        );
      assert.equal(await ids('-shipment.customer.name,id'), [5, 3, 4, 1, 2]);
      assert.equal(await ids('shipment.number'), [1, 2, 3, 4, 5]);
    });

    test('SEARCH takes deep in its JSON body', async ({ app, tokens }) => {
      const response = await app.request('SEARCH', '/items/shipments', {
        token: tokens.admin,
        body: {
          query: {
            fields: ['id', 'cargos'],
            deep: { cargos: { _sort: ['-weight'], _limit: 1 } },
            sort: ['id'],
          },
        },
      });
      assert.is(response.status, 200, response.text);
      assert.equal(payload(profile, response.body), [
        { id: 1, cargos: [2] },
        { id: 2, cargos: [3] },
        { id: 3, cargos: [] },
      ]);
    });

    test('a write answers its nested fields', async (context) => {
      const response = await context.app.request('POST', '/items/cargos?fields=label,shipment.number', {
        token: context.tokens.admin,
        body: { id: 6, label: 'figs', weight: 2, secret: 'c6', shipment: 2 },
      });
      assert.is(response.status, 200, response.text);
      assert.equal(payload(profile, response.body), { label: 'figs', shipment: { number: 'S-2' } });
      const deleted = await context.app.request('DELETE', '/items/cargos/6', { token: context.tokens.admin });
      assert.is(deleted.status, 204, deleted.text);
    });

    test('refused: too deep, deep on what fields does not expand, a one-to-many in a sort, a cursor with a relational sort', async ({
      app,
      tokens,
    }) => {
      const refused = async (path: string, reason: string) => {
        const response = await app.request('GET', path, { token: tokens.admin });
        assertError(response, 400, 'INVALID_QUERY');
        assert.is(
          (response.body as { errors: Array<{ extensions: { reason?: string } }> }).errors[0]!.extensions
            .reason,
          reason,
          path,
        );
      };
      await refused('/items/cargos?fields=*.*.*.*.*', 'MAX_DEPTH');
      await refused('/items/cargos?fields=shipment.customer.shipments.cargos.id', 'MAX_DEPTH');
      await refused('/items/shipments?fields=id&deep[cargos][_limit]=1', 'INVALID_VALUE');
      await refused('/items/cargos?fields=shipment.id&deep[shipment][_limit]=1', 'INVALID_VALUE');
      await refused('/items/shipments?sort=cargos.weight', 'INVALID_VALUE');
      await refused('/items/cargos?sort=shipment.number&meta=next', 'INVALID_CURSOR');
    });

    test.run();
  }
}
