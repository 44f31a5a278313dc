import * as assert from 'uvu/assert';
import { assertError } from '../http/scenario.ts';
import { backends } from '../support/databases.ts';
import { dropShippingCollections, type ShippingGrant, startShippingApp } from '../support/shipping-app.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import type { TestApp } from '../support/test-app.ts';

/**
 * The permission leak matrix of relational reads (docs/api.md §4, permissions at every hop): roles ×
 * paths — many-to-one and one-to-many nesting, `*.*`, `_some`, `_none`, `deep._filter`, relational sorts,
 * filters through a hidden field at each hop, hidden related rows, field masks at a hop — proving on every
 * backend that no path shows a hidden row or field, by its answer or by which rows it picks.
 *
 * Data (tests/support/shipping-schema.ts): customers 1 ACME, 2 Globex; shipments S-1→ACME, S-2→Globex,
 * S-3→none; cargos apples(3), bolts(8)→S-1, cables(12), drums(6)→S-2, eggs(1)→none.
 */

const ALL: ReadonlyArray<ShippingGrant> = [
  { collection: 'customers' },
  { collection: 'shipments' },
  { collection: 'cargos' },
];

const ROLES: Record<string, ReadonlyArray<ShippingGrant>> = {
  /** Reads cargos and shipments, not customers at all. */
  noCustomers: [{ collection: 'shipments' }, { collection: 'cargos' }],
  /** Reads customers and shipments, not cargos at all (a one-to-many into a hidden collection). */
  noCargos: [{ collection: 'customers' }, { collection: 'shipments' }],
  /** Sees shipment S-1 only (S-2 and S-3 are hidden rows). */
  someShipments: [
    { collection: 'customers' },
    { collection: 'shipments', permissions: { number: { _eq: 'S-1' } } },
    { collection: 'cargos' },
  ],
  /** Sees the light cargos only (cables, 12, is hidden). */
  someCargos: [
    { collection: 'customers' },
    { collection: 'shipments' },
    { collection: 'cargos', permissions: { weight: { _lt: 10 } } },
  ],
  /** `secret` hidden on customers and cargos. */
  masked: [
    { collection: 'customers', fields: ['id', 'name'] },
    { collection: 'shipments' },
    { collection: 'cargos', fields: ['id', 'label', 'weight', 'shipment'] },
  ],
  /** Cargos without their foreign key: a shipment must not list them. */
  childKeyHidden: [
    { collection: 'customers' },
    { collection: 'shipments' },
    { collection: 'cargos', fields: ['id', 'label', 'weight'] },
  ],
  /** A cargo's shipment shown on the lightest cargos only (weight < 5): readable, not queryable. */
  keyOnSomeRows: [
    { collection: 'customers' },
    { collection: 'shipments' },
    { collection: 'cargos', permissions: { weight: { _lt: 5 } } },
    { collection: 'cargos', permissions: { weight: { _gte: 5 } }, fields: ['id', 'label', 'weight'] },
  ],
  full: ALL,
  /** Creates cargos and reads cargos and shipments, not customers: what a write answers is read as a read is. */
  writer: [{ collection: 'shipments' }, { collection: 'cargos' }, { collection: 'cargos', action: 'create' }],
};

type Row = {
  role: string;
  path: string;
  /** The exact answer (plain profile) of a 200; omitted for refusals. */
  body?: unknown;
  /** A refusal: 403 FORBIDDEN naming this path. */
  forbidden?: string;
  /** Texts that must not appear in the answer, whatever its status. */
  never?: string[];
};

const ids = (...values: number[]) => values.map((id) => ({ id }));

const MATRIX: Row[] = [
  // A collection the caller may not read at all.
  {
    role: 'noCustomers',
    path: '/items/cargos?fields=id,shipment.customer.name',
    forbidden: 'shipment.customer',
  },
  { role: 'noCustomers', path: '/items/shipments?fields=customer.*', forbidden: 'customer' },
  {
    role: 'noCustomers',
    path: '/items/cargos?fields=id&filter[shipment][customer][name][_eq]=ACME',
    forbidden: 'shipment.customer',
  },
  { role: 'noCustomers', path: '/items/shipments?fields=id&sort=customer.name', forbidden: 'customer' },
  {
    role: 'noCustomers',
    path: '/items/shipments?fields=*.*&sort=id',
    body: [
      {
        id: 1,
        number: 'S-1',
        customer: 1,
        cargos: [
          { id: 1, label: 'apples', weight: 3, secret: 'c1', shipment: 1 },
          { id: 2, label: 'bolts', weight: 8, secret: 'c2', shipment: 1 },
        ],
      },
      {
        id: 2,
        number: 'S-2',
        customer: 2,
        cargos: [
          { id: 3, label: 'cables', weight: 12, secret: 'c3', shipment: 2 },
          { id: 4, label: 'drums', weight: 6, secret: 'c4', shipment: 2 },
        ],
      },
      { id: 3, number: 'S-3', customer: null, cargos: [] },
    ],
    never: ['ACME', 'Globex'],
  },
  { role: 'noCustomers', path: '/items/shipments?fields=id&filter[customer][_null]=true', body: ids(3) },
  // Inside it, a wrong path is refused as a right one is: a 400 would tell its names and types apart.
  ...[
    'fields=id,shipment.customer.nmae',
    'fields=id,shipment.customer.name.first',
    'fields=id,shipment.customer.shipments.cargos.shipment.id',
    'fields=id&filter[shipment][customer][nmae][_eq]=ACME',
    'fields=id&filter[shipment][customer][id][_eq]=one',
    'fields=id&filter[shipment][customer][name][_near]=ACME',
    'fields=id&sort=shipment.customer.nmae',
    'fields=id&sort=shipment.customer.name.first',
    'aggregate[count]=*&filter[shipment][customer][nmae][_eq]=ACME',
  ].map((query) => ({
    role: 'noCustomers',
    path: `/items/cargos?${query}`,
    forbidden: 'shipment.customer',
  })),
  {
    role: 'noCustomers',
    path: '/items/cargos/1?fields=shipment.customer.nmae',
    forbidden: 'shipment.customer',
  },
  { role: 'noCustomers', path: '/items/shipments?fields=customer.nmae', forbidden: 'customer' },

  // A `deep` entry names its relation: refused as a named one is, whatever its options (a wildcard alone
  // leaves the relation out, so valid options answering 200 and invalid ones 403 would tell them apart).
  {
    role: 'noCargos',
    path: '/items/shipments?fields=*.*&sort=id&limit=1',
    body: [{ id: 1, number: 'S-1', customer: { id: 1, name: 'ACME', secret: 'acme-secret' } }],
  },
  ...[
    'deep[cargos][_limit]=1',
    'deep[cargos][_filter][label][_eq]=apples',
    'deep[cargos][_filter][nmae][_eq]=apples',
    'deep[cargos][_filter][weight][_eq]=heavy',
    'deep[cargos][_sort]=label',
    'deep[cargos][_sort]=nmae',
    'deep={"cargos":{}}',
  ].flatMap((deep) => [
    { role: 'noCargos', path: `/items/shipments?fields=*.*&${deep}`, forbidden: 'cargos' },
    { role: 'noCargos', path: `/items/shipments/1?fields=*.*&${deep}`, forbidden: 'cargos' },
  ]),
  ...['deep[shipments][cargos][_limit]=1', 'deep[shipments][cargos][_filter][nmae][_eq]=x'].map((deep) => ({
    role: 'noCargos',
    path: `/items/customers?fields=*.*.*&${deep}`,
    forbidden: 'shipments.cargos',
  })),
  ...['deep[shipment][customer][shipments][_limit]=1', 'deep[shipment][customer][shipments][_limit]=x'].map(
    (deep) => ({
      role: 'noCustomers',
      path: `/items/cargos?fields=*.*.*&${deep}`,
      forbidden: 'shipment.customer',
    }),
  ),

  // Hidden related rows: a many-to-one reads null, a one-to-many leaves them out, filters never see them.
  {
    role: 'someShipments',
    path: '/items/cargos?fields=id,shipment.number&sort=id',
    body: [
      { id: 1, shipment: { number: 'S-1' } },
      { id: 2, shipment: { number: 'S-1' } },
      { id: 3, shipment: null },
      { id: 4, shipment: null },
      { id: 5, shipment: null },
    ],
    never: ['S-2', 'S-3'],
  },
  { role: 'someShipments', path: '/items/cargos?fields=id&filter[shipment][number][_eq]=S-2', body: [] },
  { role: 'someShipments', path: '/items/cargos?fields=id&filter[shipment][number][_neq]=S-1', body: [] },
  {
    role: 'someShipments',
    path: '/items/customers?fields=id,shipments.number&sort=id',
    body: [
      { id: 1, shipments: [{ number: 'S-1' }] },
      { id: 2, shipments: [] },
    ],
    never: ['S-2'],
  },
  {
    role: 'someShipments',
    path: '/items/customers?fields=id&sort=id&filter[shipments][_some][number][_eq]=S-2',
    body: [],
  },
  {
    role: 'someShipments',
    path: '/items/customers?fields=id&sort=id&filter[shipments][_none][number][_eq]=S-2',
    body: ids(1, 2),
  },
  {
    role: 'someShipments',
    path: '/items/customers?fields=id&sort=id&filter[shipments][_none][id][_nnull]=true',
    body: ids(2),
  },
  {
    role: 'someShipments',
    path: '/items/cargos?fields=id&sort=shipment.number,id',
    body: ids(1, 2, 3, 4, 5),
  },
  {
    role: 'someShipments',
    path: '/items/cargos?fields=id&sort=-shipment.number,id',
    body: ids(3, 4, 5, 1, 2),
  },
  {
    role: 'someShipments',
    path: '/items/customers?fields=id,shipments.number&sort=id&deep[shipments][_filter][number][_eq]=S-2',
    body: [
      { id: 1, shipments: [] },
      { id: 2, shipments: [] },
    ],
  },
  {
    role: 'someShipments',
    path: '/items/cargos/3?fields=*.*',
    body: { id: 3, label: 'cables', weight: 12, secret: 'c3', shipment: null },
  },

  {
    role: 'someCargos',
    path: '/items/shipments?fields=id,cargos&sort=id',
    body: [
      { id: 1, cargos: [1, 2] },
      { id: 2, cargos: [4] },
      { id: 3, cargos: [] },
    ],
  },
  { role: 'someCargos', path: '/items/shipments?fields=id&filter[cargos][_some][weight][_gt]=10', body: [] },
  { role: 'someCargos', path: '/items/shipments?fields=id&filter[cargos][weight][_gt]=10', body: [] },
  {
    role: 'someCargos',
    path: '/items/shipments?fields=id&sort=id&filter[cargos][_none][weight][_gt]=10',
    body: ids(1, 2, 3),
  },
  {
    role: 'someCargos',
    path: '/items/shipments?fields=id,cargos.label&sort=id&deep[cargos][_sort]=-weight',
    body: [
      { id: 1, cargos: [{ label: 'bolts' }, { label: 'apples' }] },
      { id: 2, cargos: [{ label: 'drums' }] },
      { id: 3, cargos: [] },
    ],
    never: ['cables'],
  },
  { role: 'someCargos', path: '/items/customers?fields=shipments.cargos.label&sort=id', never: ['cables'] },

  {
    role: 'someCargos',
    path: '/items/shipments?aggregate[count]=*&filter[cargos][_some][weight][_gt]=10',
    body: [{ count: 0 }],
  },
  {
    role: 'someShipments',
    path: '/items/cargos?aggregate[count]=*&filter[shipment][number][_eq]=S-2',
    body: [{ count: 0 }],
  },
  {
    role: 'masked',
    path: '/items/shipments?aggregate[count]=*&filter[cargos][secret][_eq]=c1',
    forbidden: 'cargos.secret',
  },
  {
    role: 'noCustomers',
    path: '/items/shipments?aggregate[count]=*&filter[customer][name][_eq]=ACME',
    forbidden: 'customer',
  },

  // Field masks at a hop: `*` narrows, a named hidden field is refused wherever it is named.
  {
    role: 'masked',
    path: '/items/cargos?fields=shipment.customer.secret',
    forbidden: 'shipment.customer.secret',
  },
  {
    role: 'masked',
    path: '/items/cargos?fields=id&filter[shipment][customer][secret][_eq]=acme-secret',
    forbidden: 'shipment.customer.secret',
  },
  {
    role: 'masked',
    path: '/items/cargos?fields=id&sort=shipment.customer.secret',
    forbidden: 'shipment.customer.secret',
  },
  { role: 'masked', path: '/items/shipments?fields=cargos.secret', forbidden: 'cargos.secret' },
  {
    role: 'masked',
    path: '/items/shipments?fields=id&filter[cargos][_some][secret][_eq]=c1',
    forbidden: 'cargos.secret',
  },
  {
    role: 'masked',
    path: '/items/shipments?fields=id&filter[cargos][_none][secret][_eq]=c1',
    forbidden: 'cargos.secret',
  },
  {
    role: 'masked',
    path: '/items/shipments?fields=cargos.id&deep[cargos][_filter][secret][_eq]=c1',
    forbidden: 'cargos.secret',
  },
  {
    role: 'masked',
    path: '/items/shipments?fields=cargos.id&deep[cargos][_sort]=secret',
    forbidden: 'cargos.secret',
  },
  // A field the caller may read on no row: an operator, a value, a json() path, a sort or an aggregate
  // that does not fit it is refused as a fitting one is, so that its type (an enum's labels) stays untold.
  ...[
    '/items/cargos?fields=id,json(secret,a)',
    '/items/cargos/1?fields=id,json(secret,a)',
    '/items/cargos?fields=id&filter[secret][_intersects]=c1',
    '/items/cargos?fields=id&filter[secret][_unknown]=c1',
    '/items/cargos?aggregate[sum]=secret',
    '/items/cargos?aggregate[count]=*&groupBy=year(secret)',
    '/items/cargos/events?filter[secret][_intersects]=c1',
  ].map((path) => ({ role: 'masked', path, forbidden: 'secret' })),
  ...[
    '/items/shipments?fields=id&filter[customer][secret][_intersects]=x',
    '/items/cargos?fields=id&filter[shipment][customer][secret][_intersects]=x',
    '/items/cargos?fields=id&sort=shipment.customer.secret,shipment.customer.secret',
  ].map((path) => ({
    role: 'masked',
    path,
    forbidden: path.startsWith('/items/shipments') ? 'customer.secret' : 'shipment.customer.secret',
  })),
  ...[
    '/items/shipments?fields=id&filter[cargos][_some][secret][_intersects]=c1',
    '/items/shipments?fields=cargos.id&deep[cargos][_filter][secret][_intersects]=c1',
  ].map((path) => ({ role: 'masked', path, forbidden: 'cargos.secret' })),
  // A path through a hidden field, or a sort through a one-to-many the caller may not follow, is refused
  // as naming it is: "not a relation" or "a one-to-many" would tell what the hidden field or relation is.
  ...[
    '/items/cargos?fields=id,secret.x',
    '/items/cargos/1?fields=id,secret.x',
    '/items/cargos?fields=id&sort=secret.x',
  ].map((path) => ({ role: 'masked', path, forbidden: 'secret' })),
  {
    role: 'masked',
    path: '/items/cargos?fields=id,shipment.customer.secret.x',
    forbidden: 'shipment.customer.secret',
  },
  {
    role: 'masked',
    path: '/items/cargos?fields=id&sort=shipment.customer.secret.x',
    forbidden: 'shipment.customer.secret',
  },
  {
    role: 'masked',
    path: '/items/customers?fields=shipments.cargos.id&deep[shipments][cargos][_sort]=secret.x',
    forbidden: 'shipments.cargos.secret',
  },
  { role: 'noCargos', path: '/items/shipments?fields=id&sort=cargos.label', forbidden: 'cargos' },
  { role: 'childKeyHidden', path: '/items/shipments?fields=id&sort=cargos.label', forbidden: 'cargos' },
  ...['filter[shipment][_eq]=1', 'filter[shipment][_eq]=one', 'filter[shipment][_contains]=1'].map(
    (query) => ({ role: 'childKeyHidden', path: `/items/cargos?fields=id&${query}`, forbidden: 'shipment' }),
  ),
  {
    role: 'masked',
    path: '/items/shipments/1?fields=*.*',
    body: {
      id: 1,
      number: 'S-1',
      customer: { id: 1, name: 'ACME' },
      cargos: [
        { id: 1, label: 'apples', weight: 3, shipment: 1 },
        { id: 2, label: 'bolts', weight: 8, shipment: 1 },
      ],
    },
    never: ['secret', 'c1'],
  },
  {
    role: 'masked',
    path: '/items/customers?fields=*.*.*&sort=id',
    never: ['secret', 'c1', 'c2', 'c3', 'c4'],
  },

  // A one-to-many needs the child's foreign key queryable.
  { role: 'childKeyHidden', path: '/items/shipments?fields=cargos.label', forbidden: 'cargos' },
  { role: 'childKeyHidden', path: '/items/shipments?fields=id,cargos', forbidden: 'cargos' },
  {
    role: 'childKeyHidden',
    path: '/items/shipments?fields=id&filter[cargos][_some][weight][_gt]=1',
    forbidden: 'cargos',
  },
  {
    role: 'childKeyHidden',
    path: '/items/shipments?fields=id&filter[cargos][_none][weight][_gt]=1',
    forbidden: 'cargos',
  },
  { role: 'childKeyHidden', path: '/items/cargos?fields=shipment.number', forbidden: 'shipment' },
  { role: 'childKeyHidden', path: '/items/cargos?fields=id&sort=shipment.number', forbidden: 'shipment' },
  {
    role: 'childKeyHidden',
    path: '/items/shipments?fields=*.*&sort=id&limit=1',
    body: [{ id: 1, number: 'S-1', customer: { id: 1, name: 'ACME', secret: 'acme-secret' } }],
    never: ['apples'],
  },

  // A foreign key shown on some rows only: the object is masked like the key; no filter or sort through it.
  {
    role: 'keyOnSomeRows',
    path: '/items/cargos?fields=id,shipment.number&sort=id',
    body: [
      { id: 1, shipment: { number: 'S-1' } },
      { id: 2, shipment: null },
      { id: 3, shipment: null },
      { id: 4, shipment: null },
      { id: 5, shipment: null },
    ],
    never: ['S-2'],
  },
  {
    role: 'keyOnSomeRows',
    path: '/items/cargos?fields=id&filter[shipment][number][_eq]=S-2',
    forbidden: 'shipment',
  },
  { role: 'keyOnSomeRows', path: '/items/cargos?fields=id&sort=shipment.number', forbidden: 'shipment' },
  { role: 'keyOnSomeRows', path: '/items/shipments?fields=cargos.id', forbidden: 'cargos' },

  // The same paths, for a caller who may read everything, answer everything.
  {
    role: 'full',
    path: '/items/shipments?fields=id&sort=id&filter[cargos][_some][secret][_eq]=c3',
    body: ids(2),
  },
  {
    role: 'full',
    path: '/items/cargos?fields=id&sort=id&filter[shipment][customer][secret][_eq]=acme-secret',
    body: ids(1, 2),
  },
];

type Context = { app: TestApp; tokens: Record<string, string> };

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `relational permission leak matrix on ${backend}`,
)) {
  test.before(async (context) => {
    Object.assign(context, await startShippingApp(target, ROLES));
  });

  test.after(async ({ app }) => {
    const { schemaEditor, schema } = app.persistence;
    await dropShippingCollections(schemaEditor, schema.current().collections);
    await app.close();
    await target.dispose();
  });

  test('a write answers nested fields with the same rules, and refuses a forbidden path before writing', async ({
    app,
    tokens,
  }) => {
    const refused = await app.request('POST', '/items/cargos?fields=id,shipment.customer.name', {
      token: tokens.writer,
      body: { id: 10, label: 'gears', weight: 4, secret: 'c10', shipment: 1 },
    });
    assertError(refused, 403, 'FORBIDDEN', 'shipment.customer');
    const misspelt = await app.request('POST', '/items/cargos?fields=id,shipment.customer.nmae', {
      token: tokens.writer,
      body: { id: 10, label: 'gears', weight: 4, secret: 'c10', shipment: 1 },
    });
    assertError(misspelt, 403, 'FORBIDDEN', 'shipment.customer');
    const none = await app.request('GET', '/items/cargos/10', { token: tokens.admin });
    assert.is(none.status, 404, none.text);
    const answered = await app.request('POST', '/items/cargos?fields=id,*.*.*', {
      token: tokens.writer,
      body: { id: 10, label: 'gears', weight: 4, secret: 'c10', shipment: 1 },
    });
    assert.is(answered.status, 200, answered.text);
    assert.not.ok(answered.text.includes('ACME'), answered.text);
    assert.equal((answered.body as { shipment: { customer: unknown } }).shipment.customer, 1);
    const deleted = await app.request('DELETE', '/items/cargos/10', { token: tokens.admin });
    assert.is(deleted.status, 204, deleted.text);
  });

  test('a subscription refuses a path into a hidden collection as it refuses any path (flat only)', async ({
    app,
    tokens,
  }) => {
    const answers = new Set<string>();
    for (const name of ['name', 'nmae']) {
      for (const query of [
        `fields=id,shipment.customer.${name}`,
        `filter[shipment][customer][${name}][_eq]=x`,
      ]) {
        const response = await app.request('GET', `/items/cargos/events?${query}`, {
          token: tokens.noCustomers,
        });
        assert.is(response.status, 400, response.text);
        answers.add(response.text.replace(name, '…'));
      }
    }
    assert.is(answers.size, 2, [...answers].join('\n'));
  });

  for (const row of MATRIX) {
    test(`${row.role}: GET ${row.path}`, async ({ app, tokens }) => {
      const response = await app.request('GET', row.path, { token: tokens[row.role] });
      for (const text of row.never ?? []) {
        assert.not.ok(response.text.includes(text), `"${text}" leaked: ${response.text}`);
      }
      if (row.forbidden !== undefined) {
        assertError(response, 403, 'FORBIDDEN', row.forbidden);
        return;
      }
      assert.is(response.status, 200, response.text);
      if (row.body !== undefined) assert.equal(response.body, row.body);
    });
  }

  test.run();
}
