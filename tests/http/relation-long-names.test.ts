import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { RelationView } from '../../src/application/relations/relation-view.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { runScenario, type Scenario } from './scenario.ts';

/**
 * Names at PostgreSQL's 63-byte limit (docs/api.md §7a): a collection whose name leaves too little room
 * for Directus's `<collection>_<field>_foreign` and for the default one-to-many `<collection>_<field>`,
 * which PostgreSQL would cut alike for its two foreign keys. Names no other suite uses.
 */
const TARGET = 'dgl_target';
const LONG = `dgl_${'p'.repeat(51)}`;
const COLLECTIONS = [LONG, TARGET] as const;

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true } };
const TABLES = [
  { collection: TARGET, fields: [id] },
  {
    collection: LONG,
    fields: [id, { field: 'parent_one', type: 'integer' }, { field: 'parent_two', type: 'integer' }],
  },
];

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

const relationTo = (field: string) => ({ collection: LONG, field, related_collection: TARGET });

const ROWS: Scenario[] = [
  {
    name: 'the first foreign key of the long-named collection → 200',
    method: 'POST',
    path: '/relations',
    as: 'admin',
    body: relationTo('parent_one'),
    expectedStatus: 200,
  },
  {
    name: 'the second, whose Directus constraint name would be cut like the first one’s → 200, not 409',
    method: 'POST',
    path: '/relations',
    as: 'admin',
    body: relationTo('parent_two'),
    expectedStatus: 200,
    expectedBody: (body) => assert.is((body as RelationView).field, 'parent_two'),
  },
  {
    name: 'both are listed, under two constraint names that PostgreSQL keeps whole',
    method: 'GET',
    path: `/relations/${LONG}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      const relations = body as RelationView[];
      assert.equal(
        relations.map((relation) => relation.field),
        ['parent_one', 'parent_two'],
      );
      const names = relations.map((relation) => relation.schema.constraint_name);
      assert.is(new Set(names).size, 2, names.join(', '));
      for (const name of names) {
        assert.ok(utf8Bytes(name) <= 63, `${name} is ${utf8Bytes(name)} bytes`);
        assert.match(name, /^dgl_p+_[0-9a-f]{16}_foreign$/);
      }
    },
  },
  {
    name: 'the default one-to-many names, over 63 bytes, are given to none',
    method: 'GET',
    path: `/relations/${LONG}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) =>
      assert.equal(
        (body as RelationView[]).map((relation) => relation.meta.one_field),
        [null, null],
      ),
  },
  {
    name: '…so a read that names one is refused, rather than answered under a cut key',
    method: 'GET',
    path: `/items/${TARGET}?fields=id,${LONG}_parent_one.id`,
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'INVALID_QUERY',
  },
  {
    name: 'a chosen one-to-many name → 200',
    method: 'PATCH',
    path: `/relations/${LONG}/parent_two`,
    as: 'admin',
    body: { meta: { one_field: 'seconds' } },
    expectedStatus: 200,
    expectedBody: (body) => assert.is((body as RelationView).meta.one_field, 'seconds'),
  },
  {
    name: '…reads the referring items under that name',
    method: 'GET',
    path: `/items/${TARGET}?fields=id,seconds.id`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ id: 1, seconds: [{ id: 1 }] }]),
  },
  {
    name: 'an action changed on one makes its constraint again without touching the other',
    method: 'PATCH',
    path: `/relations/${LONG}/parent_one`,
    as: 'admin',
    body: { schema: { on_delete: 'CASCADE' } },
    expectedStatus: 200,
    expectedBody: (body) => assert.is((body as RelationView).schema.on_delete, 'CASCADE'),
  },
  {
    name: 'dropping the second → 204',
    method: 'DELETE',
    path: `/relations/${LONG}/parent_two`,
    as: 'admin',
    expectedStatus: 204,
  },
  {
    name: '…leaves the first',
    method: 'GET',
    path: `/relations/${LONG}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) =>
      assert.equal(
        (body as RelationView[]).map((relation) => [relation.field, relation.schema.on_delete]),
        [['parent_one', 'CASCADE']],
      ),
  },
];

async function dropIfPresent(persistence: Persistence) {
  const { collections } = await persistence.schema.refresh();
  for (const name of COLLECTIONS)
    if (collections.has(name)) await persistence.schemaEditor.dropCollection(name);
}

type Context = { app: TestApp; tokens: Record<string, string> };

for (const [target, suite] of suitePerBackend<Context>(
  backends(),
  (backend) => `relations of a collection with a long name on ${backend}`,
)) {
  suite.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await dropIfPresent(persistence);
    context.app = await startTestApp({ persistence });
    const admin = (await context.app.login(await context.app.seedAdmin())).access_token;
    for (const table of TABLES) {
      const created = await context.app.request('POST', '/collections', { token: admin, body: table });
      assert.is(created.status, 200, created.text);
    }
    for (const [collection, item] of [
      [TARGET, { id: 1 }],
      [LONG, { id: 1, parent_one: 1, parent_two: 1 }],
    ] as const) {
      const written = await context.app.request('POST', `/items/${collection}`, { token: admin, body: item });
      assert.is(written.status, 200, written.text);
    }
    context.tokens = { admin };
  });
  suite.after(async ({ app }) => {
    await dropIfPresent(app.persistence);
    await app.close();
    await target.dispose();
  });

  for (const row of ROWS) suite(row.name, ({ app, tokens }) => runScenario(app, tokens, row));
  suite.run();
}
