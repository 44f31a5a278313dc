import * as assert from 'uvu/assert';
import { z } from 'zod';
import { relationAnswer } from '../../src/adapters/http/openapi/relation-answer.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { RelationView } from '../../src/application/relations/relation-view.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { runScenario, type Scenario } from './scenario.ts';

/** Names no other suite uses: database targets are shared by every suite of the process. */
const CUSTOMERS = 'dgr_customers';
const SHIPMENTS = 'dgr_shipments';
const CARGOS = 'dgr_cargos';
/** Dropped in this order: a collection others refer to goes last. */
const COLLECTIONS = [CARGOS, SHIPMENTS, CUSTOMERS] as const;

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true } };
const TABLES = [
  {
    collection: CUSTOMERS,
    fields: [
      id,
      { field: 'name', type: 'string' },
      { field: 'code', type: 'string', schema: { is_unique: true } },
    ],
  },
  {
    collection: SHIPMENTS,
    fields: [id, { field: 'number', type: 'string' }, { field: 'customer', type: 'integer' }],
  },
  {
    collection: CARGOS,
    fields: [id, { field: 'label', type: 'string' }, { field: 'shipment', type: 'integer' }],
  },
];

const CARGO_SHIPMENT: RelationView = {
  collection: CARGOS,
  field: 'shipment',
  related_collection: SHIPMENTS,
  schema: {
    constraint_name: `${CARGOS}_shipment_foreign`,
    table: CARGOS,
    column: 'shipment',
    foreign_key_schema: 'public',
    foreign_key_table: SHIPMENTS,
    foreign_key_column: 'id',
    on_update: 'NO ACTION',
    on_delete: 'NO ACTION',
  },
  meta: {
    id: null,
    many_collection: CARGOS,
    many_field: 'shipment',
    one_collection: SHIPMENTS,
    one_field: CARGOS,
    one_collection_field: null,
    one_allowed_collections: null,
    junction_field: null,
    sort_field: null,
    one_deselect_action: 'nullify',
  },
};

const SHIPMENT_CUSTOMER: RelationView = {
  collection: SHIPMENTS,
  field: 'customer',
  related_collection: CUSTOMERS,
  schema: {
    ...CARGO_SHIPMENT.schema,
    constraint_name: `${SHIPMENTS}_customer_foreign`,
    table: SHIPMENTS,
    column: 'customer',
    foreign_key_table: CUSTOMERS,
    on_delete: 'SET NULL',
  },
  meta: {
    ...CARGO_SHIPMENT.meta,
    many_collection: SHIPMENTS,
    many_field: 'customer',
    one_collection: CUSTOMERS,
    one_field: SHIPMENTS,
  },
};

/** Only the relations of this suite: other suites' tables may share the database. */
const ours = (body: unknown) =>
  (body as Array<Partial<RelationView>>).filter((relation) =>
    (COLLECTIONS as ReadonlyArray<string | undefined>).includes(relation.collection),
  );

const namesOf = (body: unknown) => ours(body).map((relation) => `${relation.collection}.${relation.field}`);

type Row = Scenario & { everywhere?: true };

const post = (
  name: string,
  body: unknown,
  expectedStatus: number,
  expectedCode?: string,
  field?: string,
): Row => ({
  name,
  method: 'POST',
  path: '/relations',
  as: 'admin',
  body,
  expectedStatus,
  expectedCode,
  expectedField: field,
});

const cargoShipment = { collection: CARGOS, field: 'shipment', related_collection: SHIPMENTS };

const createRows: Row[] = [
  {
    ...post(
      'admin declares cargos.shipment → shipments: 200 and the Directus-shaped view',
      cargoShipment,
      200,
    ),
    everywhere: true,
    expectedBody: (body) => assert.equal(body, CARGO_SHIPMENT),
  },
  {
    ...post(
      'with on_delete SET NULL and the one_field the database will give it → 200',
      {
        collection: SHIPMENTS,
        field: 'customer',
        related_collection: CUSTOMERS,
        schema: { on_delete: 'SET NULL' },
        meta: { one_field: SHIPMENTS, sort_field: null },
      },
      200,
    ),
    everywhere: true,
    expectedBody: (body) => assert.equal(body, SHIPMENT_CUSTOMER),
  },
  {
    ...post('declaring it again → 409 RECORD_NOT_UNIQUE', cargoShipment, 409, 'RECORD_NOT_UNIQUE', 'field'),
    everywhere: true,
  },
  {
    ...post(
      'a one_field taken by a field of the related collection → 400 on one_field, nothing made',
      { collection: CARGOS, field: 'id', related_collection: CUSTOMERS, meta: { one_field: 'name' } },
      400,
      'FAILED_VALIDATION',
      'one_field',
    ),
    everywhere: true,
  },
  post(
    'a one_field that is no field name → 400 on one_field',
    { collection: CARGOS, field: 'id', related_collection: CUSTOMERS, meta: { one_field: 'two words' } },
    400,
    'FAILED_VALIDATION',
    'one_field',
  ),
  post(
    'an unknown collection → 404 COLLECTION_NOT_FOUND',
    { ...cargoShipment, collection: 'dgr_ghosts' },
    404,
    'COLLECTION_NOT_FOUND',
  ),
  post(
    'an unknown related collection → 404 COLLECTION_NOT_FOUND',
    { ...cargoShipment, field: 'label', related_collection: 'dgr_ghosts' },
    404,
    'COLLECTION_NOT_FOUND',
  ),
  post(
    'an unknown field → 400 on field',
    { ...cargoShipment, field: 'nope' },
    400,
    'FAILED_VALIDATION',
    'field',
  ),
  {
    ...post(
      'a text field referring to an integer key → 400 on field',
      { ...cargoShipment, field: 'label' },
      400,
      'FAILED_VALIDATION',
      'field',
    ),
    everywhere: true,
  },
  post(
    'a related field that is neither key nor unique → 400 on related_field',
    { ...cargoShipment, field: 'id', schema: { foreign_key_column: 'customer' } },
    400,
    'FAILED_VALIDATION',
    'related_field',
  ),
  post(
    'no related_collection → 400 INVALID_PAYLOAD',
    { collection: CARGOS, field: 'shipment' },
    400,
    'INVALID_PAYLOAD',
  ),
  post(
    'an unknown referential action → 400 INVALID_PAYLOAD',
    { ...cargoShipment, field: 'label', schema: { on_delete: 'EXPLODE' } },
    400,
    'INVALID_PAYLOAD',
  ),
  post(
    'a junction field (many-to-many bookkeeping we do not keep) → 400 INVALID_PAYLOAD',
    { ...cargoShipment, field: 'label', meta: { junction_field: 'other' } },
    400,
    'INVALID_PAYLOAD',
  ),
];

const readRows: Row[] = [
  {
    name: 'GET /relations: both, by collection then field, as the OpenAPI document describes them',
    everywhere: true,
    method: 'GET',
    path: '/relations',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      assert.equal(ours(body), [CARGO_SHIPMENT, SHIPMENT_CUSTOMER]);
      assert.equal(z.array(relationAnswer).parse(body), body, 'members the schema does not name');
    },
  },
  {
    name: 'filter on related_collection',
    method: 'GET',
    path: `/relations?filter[related_collection][_eq]=${CUSTOMERS}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [SHIPMENT_CUSTOMER]),
  },
  {
    name: 'sort descending and fields in the order asked',
    method: 'GET',
    path: `/relations?sort=-collection&fields=field,collection&filter={"collection":{"_starts_with":"dgr_"}}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      assert.equal(body, [
        { field: 'customer', collection: SHIPMENTS },
        { field: 'shipment', collection: CARGOS },
      ]);
      assert.equal(Object.keys((body as object[])[0]!), ['field', 'collection']);
    },
  },
  {
    name: 'search looks in the names',
    method: 'GET',
    path: '/relations?search=R_CUSTOM',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(namesOf(body), [`${SHIPMENTS}.customer`]),
  },
  {
    name: 'limit, offset and meta=* (headers in the plain profile)',
    method: 'GET',
    path: '/relations?filter[collection][_starts_with]=dgr_&limit=1&offset=1&meta=*',
    as: 'admin',
    expectedStatus: 200,
    expectedHeaders: { 'x-filter-count': '2', 'x-total-count': /^\d+$/ },
    expectedBody: (body) => assert.equal(body, [SHIPMENT_CUSTOMER]),
  },
  {
    name: 'json(schema, on_delete) picks a value inside',
    method: 'GET',
    path: `/relations/${SHIPMENTS}?fields=field,json(schema, on_delete)`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ field: 'customer', schema_on_delete_json: 'SET NULL' }]),
  },
  {
    name: 'an unknown field in fields → 400 INVALID_QUERY',
    method: 'GET',
    path: '/relations?fields=nope',
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'INVALID_QUERY',
  },
  {
    name: 'sorting on a json field → 400 INVALID_QUERY',
    method: 'GET',
    path: '/relations?sort=schema',
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'INVALID_QUERY',
  },
  {
    name: 'cursor pages are for items → 400 INVALID_QUERY',
    method: 'GET',
    path: '/relations?meta=next',
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'INVALID_QUERY',
  },
  ...['aggregate[count]=*', 'groupBy[]=collection', 'deep[x][_limit]=1', 'fields=schema.on_delete'].map(
    (query): Row => ({
      name: `${query}: relations have no aggregates nor relations of their own → 400 INVALID_QUERY`,
      method: 'GET',
      path: `/relations?${query}`,
      as: 'admin',
      expectedStatus: 400,
      expectedCode: 'INVALID_QUERY',
    }),
  ),
  {
    name: 'a limit above the maximum → 400 INVALID_QUERY',
    method: 'GET',
    path: '/relations?limit=100000000',
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'INVALID_QUERY',
  },
  {
    name: 'GET /relations/:collection: the foreign keys it holds',
    everywhere: true,
    method: 'GET',
    path: `/relations/${CARGOS}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [CARGO_SHIPMENT]),
  },
  {
    name: 'a collection holding none → []',
    method: 'GET',
    path: `/relations/${CUSTOMERS}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, []),
  },
  {
    name: 'GET /relations/:collection/:field → the relation',
    everywhere: true,
    method: 'GET',
    path: `/relations/${CARGOS}/shipment`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, CARGO_SHIPMENT),
  },
  {
    name: '…with fields',
    method: 'GET',
    path: `/relations/${CARGOS}/shipment?fields=related_collection`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, { related_collection: SHIPMENTS }),
  },
  {
    name: 'a field that is no foreign key → 404 NOT_FOUND for admins',
    method: 'GET',
    path: `/relations/${CARGOS}/label`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'an unknown collection → 404 COLLECTION_NOT_FOUND for admins',
    method: 'GET',
    path: '/relations/dgr_ghosts',
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'COLLECTION_NOT_FOUND',
  },
];

const patch = (
  name: string,
  path: string,
  body: unknown,
  expectedStatus: number,
  expectedCode?: string,
  field?: string,
): Row => ({
  name,
  method: 'PATCH',
  path,
  as: 'admin',
  body,
  expectedStatus,
  expectedCode,
  expectedField: field,
});

const CARGO_PATH = `/relations/${CARGOS}/shipment`;

const renamed = (oneField: string, schema: Partial<RelationView['schema']> = {}) => ({
  ...CARGO_SHIPMENT,
  schema: { ...CARGO_SHIPMENT.schema, ...schema },
  meta: { ...CARGO_SHIPMENT.meta, one_field: oneField },
});

const updateRows: Row[] = [
  {
    ...patch(
      'PATCH meta.one_field chooses the one-to-many name → 200',
      CARGO_PATH,
      { meta: { one_field: 'parcels' } },
      200,
    ),
    everywhere: true,
    expectedBody: (body) => assert.equal(body, renamed('parcels')),
  },
  {
    name: '…kept with the constraint, as the schema is read again',
    everywhere: true,
    method: 'GET',
    path: CARGO_PATH,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, renamed('parcels')),
  },
  {
    ...patch(
      '…and through a change of action, which makes the constraint again',
      CARGO_PATH,
      {
        schema: { on_delete: 'SET NULL' },
      },
      200,
    ),
    everywhere: true,
    expectedBody: (body) => assert.equal(body, renamed('parcels', { on_delete: 'SET NULL' })),
  },
  {
    ...patch(
      'a one_field of null goes back to the default name',
      CARGO_PATH,
      {
        schema: { on_delete: 'NO ACTION' },
        meta: { one_field: null },
      },
      200,
    ),
    everywhere: true,
    expectedBody: (body) => assert.equal(body, CARGO_SHIPMENT),
  },
  {
    ...patch(
      'PATCH on_delete and on_update → 200, the constraint made again',
      CARGO_PATH,
      {
        schema: { on_delete: 'cascade', on_update: 'RESTRICT' },
      },
      200,
    ),
    everywhere: true,
    expectedBody: (body) =>
      assert.equal(body, {
        ...CARGO_SHIPMENT,
        schema: { ...CARGO_SHIPMENT.schema, on_delete: 'CASCADE', on_update: 'RESTRICT' },
      }),
  },
  {
    ...patch(
      'PATCH one action leaves the other as it is',
      CARGO_PATH,
      { schema: { on_update: 'NO ACTION' } },
      200,
    ),
    everywhere: true,
    expectedBody: (body) => assert.is((body as RelationView).schema.on_delete, 'CASCADE'),
  },
  {
    ...patch(
      'PATCH the whole relation back, as Directus clients do → 200',
      CARGO_PATH,
      { ...CARGO_SHIPMENT, meta: { ...CARGO_SHIPMENT.meta, id: undefined } },
      200,
    ),
    everywhere: true,
    expectedBody: (body) => assert.equal(body, CARGO_SHIPMENT),
  },
  patch(
    'pointing it at another collection → 400 on related_collection',
    CARGO_PATH,
    { related_collection: CUSTOMERS },
    400,
    'FAILED_VALIDATION',
    'related_collection',
  ),
  patch(
    'another field than the path → 400 INVALID_PAYLOAD',
    CARGO_PATH,
    { field: 'label' },
    400,
    'INVALID_PAYLOAD',
  ),
  patch(
    'a one_field taken by a field → 400 on one_field',
    CARGO_PATH,
    { meta: { one_field: 'number' } },
    400,
    'FAILED_VALIDATION',
    'one_field',
  ),
  patch(
    'an unknown action → 400 INVALID_PAYLOAD',
    CARGO_PATH,
    { schema: { on_delete: 'NUKE' } },
    400,
    'INVALID_PAYLOAD',
  ),
  patch('a field without relation → 404 NOT_FOUND', `/relations/${CARGOS}/label`, {}, 404, 'NOT_FOUND'),
  {
    name: 'the refused changes changed nothing',
    everywhere: true,
    method: 'GET',
    path: CARGO_PATH,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, CARGO_SHIPMENT),
  },
];

/** The member reads cargos (every field) and shipments without `customer`, and nothing of customers. */
const memberRows: Row[] = [
  {
    name: 'a member sees only relations between collections and through fields it may read',
    everywhere: true,
    method: 'GET',
    path: '/relations',
    as: 'member',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(namesOf(body), [`${CARGOS}.shipment`]),
  },
  {
    name: 'a member reads a relation it may see',
    method: 'GET',
    path: `/relations/${CARGOS}/shipment`,
    as: 'member',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, CARGO_SHIPMENT),
  },
  ...[
    ['through a field it may not read', `/relations/${SHIPMENTS}/customer`],
    ['of a field that is no relation', `/relations/${CARGOS}/label`],
    ['of a collection it may not read', `/relations/${CUSTOMERS}`],
    ['of an unknown collection', '/relations/dgr_ghosts'],
    ['of a field of an unknown collection', '/relations/dgr_ghosts/x'],
  ].map(
    ([what, path]): Row => ({
      name: `a member asking for a relation ${what} → 403, whether or not it exists`,
      method: 'GET',
      path: path!,
      as: 'member',
      expectedStatus: 403,
      expectedCode: 'FORBIDDEN',
    }),
  ),
  {
    name: 'an anonymous caller with no public permissions sees none',
    method: 'GET',
    path: '/relations',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(ours(body), []),
  },
  ...(
    [
      ['POST', '/relations', { ...cargoShipment, field: 'id' }],
      ['PATCH', `/relations/${CARGOS}/shipment`, { schema: { on_delete: 'CASCADE' } }],
      ['DELETE', `/relations/${CARGOS}/shipment`, undefined],
    ] as const
  ).flatMap(([method, path, body]): Row[] => [
    {
      name: `a member ${method} ${path} → 403 FORBIDDEN`,
      everywhere: method === 'DELETE' ? true : undefined,
      method,
      path,
      body,
      as: 'member',
      expectedStatus: 403,
      expectedCode: 'FORBIDDEN',
    },
    {
      name: `anonymous ${method} ${path} → 401 UNAUTHENTICATED`,
      method,
      path,
      body,
      expectedStatus: 401,
      expectedCode: 'UNAUTHENTICATED',
    },
  ]),
  {
    name: 'the refused calls changed nothing',
    everywhere: true,
    method: 'GET',
    path: '/relations',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(ours(body), [CARGO_SHIPMENT, SHIPMENT_CUSTOMER]),
  },
];

const dropRows: Row[] = [
  {
    name: 'dropping a collection another one refers to → 400 naming the relation and how to drop it',
    everywhere: true,
    method: 'DELETE',
    path: `/collections/${SHIPMENTS}`,
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'collection',
    expectedMessage: `The relation ${CARGOS}.shipment refers to this collection: drop it first (DELETE /relations/${CARGOS}/shipment).`,
  },
  {
    name: 'a relation to a unique field that is not the key: created for the next row',
    everywhere: true,
    method: 'POST',
    path: '/relations',
    as: 'admin',
    body: {
      collection: CARGOS,
      field: 'label',
      related_collection: CUSTOMERS,
      schema: { foreign_key_column: 'code' },
    },
    expectedStatus: 200,
  },
  {
    name: 'dropping the field it refers to → 400 naming the relation and how to drop it',
    everywhere: true,
    method: 'DELETE',
    path: `/fields/${CUSTOMERS}/code`,
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'code',
    expectedMessage: `The relation ${CARGOS}.label refers to this field: drop it first (DELETE /relations/${CARGOS}/label).`,
  },
  {
    name: 'that relation dropped again → 204',
    everywhere: true,
    method: 'DELETE',
    path: `/relations/${CARGOS}/label`,
    as: 'admin',
    expectedStatus: 204,
  },
  {
    name: 'the collection at the end of the chain names the one relation that refers to it',
    method: 'DELETE',
    path: `/collections/${CUSTOMERS}`,
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedMessage: `The relation ${SHIPMENTS}.customer refers to this collection: drop it first (DELETE /relations/${SHIPMENTS}/customer).`,
  },
  {
    name: 'DELETE /relations/:collection/:field → 204',
    everywhere: true,
    method: 'DELETE',
    path: `/relations/${SHIPMENTS}/customer`,
    as: 'admin',
    expectedStatus: 204,
  },
  {
    name: 'dropping it again → 404 NOT_FOUND',
    everywhere: true,
    method: 'DELETE',
    path: `/relations/${SHIPMENTS}/customer`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'dropping in an unknown collection → 404 COLLECTION_NOT_FOUND',
    method: 'DELETE',
    path: '/relations/dgr_ghosts/x',
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'after the drop only the other one is listed, and the field keeps its column',
    everywhere: true,
    method: 'GET',
    path: '/relations',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(ours(body), [CARGO_SHIPMENT]),
  },
  {
    name: '…the field is still there',
    everywhere: true,
    method: 'GET',
    path: `/fields/${SHIPMENTS}/customer`,
    as: 'admin',
    expectedStatus: 200,
  },
];

const ROWS: Row[] = [...createRows, ...readRows, ...updateRows, ...memberRows, ...dropRows];

async function dropIfPresent(persistence: Persistence) {
  const { collections } = await persistence.schema.refresh();
  for (const name of COLLECTIONS)
    if (collections.has(name)) await persistence.schemaEditor.dropCollection(name);
}

type Context = { app: TestApp; tokens: Record<string, string> };

async function prepare(app: TestApp): Promise<Record<string, string>> {
  const admin = (await app.login(await app.seedAdmin())).access_token;
  for (const table of TABLES) {
    const created = await app.request('POST', '/collections', { token: admin, body: table });
    assert.is(created.status, 200, created.text);
  }
  const role = await app.createRole({ name: 'Member' });
  for (const [collection, fields] of [
    [CARGOS, ['*']],
    [SHIPMENTS, ['id', 'number']],
  ] as const) {
    const permission = await app.request('POST', '/permissions', {
      token: admin,
      body: { role: role.id, collection, action: 'read', fields },
    });
    assert.is(permission.status, 200, permission.text);
  }
  const member = (await app.login(await app.createUser({ role: role.id }))).access_token;
  return { admin, member };
}

for (const [target, relations] of suitePerBackend<Context>(
  backends(),
  (backend) => `/relations on ${backend}`,
)) {
  relations.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await dropIfPresent(persistence);
    context.app = await startTestApp({ persistence });
    context.tokens = await prepare(context.app);
  });
  relations.after(async ({ app }) => {
    await dropIfPresent(app.persistence);
    await app.close();
    await target.dispose();
  });

  const rows = target.name === 'memory' ? ROWS : ROWS.filter((row) => row.everywhere);
  for (const row of rows) relations(row.name, ({ app, tokens }) => runScenario(app, tokens, row));
  relations.run();
}

for (const [target, directus] of suitePerBackend<Context>(
  backends().filter((backend) => backend.name === 'memory'),
  () => '/relations in the directus profile',
)) {
  directus.before(async (context) => {
    // Prepared through the plain profile (its answers are what `prepare` reads), on the same database.
    const persistence = borrowed(await target.fresh());
    const plain = await startTestApp({ persistence });
    context.tokens = await prepare(plain);
    await plain.close();
    context.app = await startTestApp({ persistence, env: { API_PROFILE: 'directus' } });
    const created = await context.app.request('POST', '/relations', {
      token: context.tokens.admin,
      body: cargoShipment,
    });
    assert.is(created.status, 200, created.text);
    assert.equal(created.body, { data: CARGO_SHIPMENT });
  });
  directus.after(async ({ app }) => {
    await app.close();
    await target.dispose();
  });

  directus('lists in `data`, with counts in `meta`', async ({ app, tokens }) => {
    const response = await app.request('GET', '/relations?meta=total_count,filter_count', {
      token: tokens.admin,
    });
    assert.is(response.status, 200, response.text);
    assert.equal(response.body, { data: [CARGO_SHIPMENT], meta: { total_count: 1, filter_count: 1 } });
  });

  directus('one relation in `data`', async ({ app, tokens }) => {
    const response = await app.request('GET', `/relations/${CARGOS}/shipment`, { token: tokens.member });
    assert.equal(response.body, { data: CARGO_SHIPMENT });
  });

  directus.run();
}
