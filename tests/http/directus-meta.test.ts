import * as assert from 'uvu/assert';
import type { CollectionView, FieldView } from '../../src/application/collections/collection-view.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError, runScenario, type Scenario } from './scenario.ts';

/**
 * Directus's `meta` on collections and fields (docs/api.md §7, docs/decisions/0064), as @directus/sdk's
 * createCollection, createField, updateField and updateCollection send it: presentation accepted and not
 * kept, what datagate has applied, what it would not do refused, with nothing written.
 */

/** Names no other suite uses: database targets are shared by every suite of the process. */
const ARTICLES = 'dm_articles';
const PREFIX = 'dm_';

/** A collection as the Data Studio would make it: every field with the settings the app sends. */
const DIRECTUS_STYLE = {
  collection: ARTICLES,
  schema: {},
  meta: {
    collection: ARTICLES,
    icon: 'article',
    note: 'Blog posts',
    display_template: '{{title}}',
    hidden: false,
    singleton: false,
    versioning: false,
    translations: null,
    sort_field: null,
    archive_field: null,
    archive_app_filter: true,
    archive_value: null,
    unarchive_value: null,
    color: null,
    item_duplication_fields: null,
    sort: 1,
    group: null,
    collapse: 'open',
    preview_url: null,
    accountability: 'activity',
  },
  fields: [
    {
      field: 'id',
      type: 'uuid',
      schema: { is_primary_key: true },
      meta: { special: ['uuid'], hidden: true, readonly: true, interface: 'input' },
    },
    {
      field: 'title',
      type: 'string',
      schema: { is_nullable: false },
      meta: { interface: 'input', required: true, width: 'full', note: 'Shown in lists', sort: 2 },
    },
    {
      field: 'date_created',
      type: 'dateTime',
      meta: { special: ['date-created'], interface: 'datetime', readonly: true, hidden: true },
    },
    {
      field: 'user_created',
      type: 'uuid',
      meta: { special: ['user-created'], interface: 'select-dropdown-m2o', readonly: true },
    },
    { field: 'published', type: 'boolean', meta: { special: ['cast-boolean'], interface: 'boolean' } },
    { field: 'extra', type: 'json', meta: { special: ['cast-json'], interface: 'input-code' } },
    { field: 'author', type: 'uuid', meta: { special: ['m2o'], interface: 'select-dropdown-m2o' } },
    {
      field: 'body',
      type: 'text',
      meta: {
        interface: 'input-rich-text-html',
        display: 'formatted-value',
        display_options: null,
        options: { toolbar: ['bold'] },
        conditions: null,
        translations: [{ language: 'en-US', translation: 'Body' }],
        group: null,
        validation: null,
        validation_message: null,
        required: false,
        searchable: true,
        special: null,
      },
    },
  ],
};

/** A valid new collection of one field, `meta` set on it and on the collection as a row needs. */
const collectionWith = (name: string, field: object, meta?: object) => ({
  collection: name,
  fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }, field],
  ...(meta ? { meta } : {}),
});

/** Each asks something datagate would not do, or is no `meta`: refused, naming the member, nothing created. */
const REFUSED_CREATES: Scenario[] = (
  [
    [
      'a special datagate does not do ("hash": the value would be stored as sent)',
      collectionWith(`${PREFIX}hash`, { field: 'pw', type: 'string', meta: { special: ['hash'] } }),
      'fields.1.meta.special',
    ],
    [
      '"uuid" on a uuid that is no primary key (datagate generates only keys)',
      collectionWith(`${PREFIX}uuid`, { field: 'ref', type: 'uuid', meta: { special: ['uuid'] } }),
      'fields.1.meta.special',
    ],
    [
      '"date-created" on a field datagate does not fill (it fills date_created, by name)',
      collectionWith(`${PREFIX}created_on`, {
        field: 'created_on',
        type: 'timestamp',
        meta: { special: ['date-created'] },
      }),
      'fields.1.meta.special',
    ],
    [
      '"cast-csv" (a text read as a list)',
      collectionWith(`${PREFIX}csv`, { field: 'tags', type: 'text', meta: { special: ['cast-csv'] } }),
      'fields.1.meta.special',
    ],
    [
      '"required" on a column that may hold null',
      collectionWith(`${PREFIX}required`, { field: 'title', type: 'string', meta: { required: true } }),
      'fields.1.meta.required',
    ],
    [
      "a field's own validation rule",
      collectionWith(`${PREFIX}validation`, {
        field: 'n',
        type: 'integer',
        meta: { validation: { n: { _gt: 0 } } },
      }),
      'fields.1.meta.validation',
    ],
    [
      'a field left out of search',
      collectionWith(`${PREFIX}searchable`, { field: 't', type: 'text', meta: { searchable: false } }),
      'fields.1.meta.searchable',
    ],
    [
      'a field meta that is no object',
      collectionWith(`${PREFIX}meta_text`, { field: 't', type: 'text', meta: 'input' }),
      'fields.1.meta',
    ],
    [
      'a member no Directus field meta has',
      collectionWith(`${PREFIX}meta_unknown`, { field: 't', type: 'text', meta: { colour: 'red' } }),
      'fields.1.meta.colour',
    ],
    [
      'a singleton collection',
      collectionWith(`${PREFIX}singleton`, { field: 't', type: 'text' }, { singleton: true }),
      'meta.singleton',
    ],
    [
      'content versions',
      collectionWith(`${PREFIX}versioning`, { field: 't', type: 'text' }, { versioning: true }),
      'meta.versioning',
    ],
    [
      'a watch of a collection not made yet',
      collectionWith(`${PREFIX}watched`, { field: 't', type: 'text' }, { realtime_watch: true }),
      'meta.realtime_watch',
    ],
    [
      'an accountability datagate does not have',
      collectionWith(`${PREFIX}accountability`, { field: 't', type: 'text' }, { accountability: 'none' }),
      'meta.accountability',
    ],
    [
      'an auto-increment on a field that is no primary key',
      collectionWith(`${PREFIX}counted`, {
        field: 'n',
        type: 'integer',
        schema: { has_auto_increment: true },
      }),
      'fields.1.schema.has_auto_increment',
    ],
    [
      'no auto-increment on an integer primary key, which counts by itself',
      {
        collection: `${PREFIX}uncounted`,
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: false } },
        ],
      },
      'fields.0.schema.has_auto_increment',
    ],
    [
      'a member no Directus collection meta has',
      collectionWith(`${PREFIX}collection_unknown`, { field: 't', type: 'text' }, { colour: 'red' }),
      'meta.colour',
    ],
  ] as const
).map(([what, body, field]) => ({
  name: `POST /collections with ${what} → 400 INVALID_PAYLOAD naming ${field}`,
  method: 'POST',
  path: '/collections',
  as: 'admin',
  body,
  expectedStatus: 400,
  expectedCode: 'INVALID_PAYLOAD',
  expectedField: field,
}));

const MESSAGES: Scenario[] = [
  {
    name: 'a refused special is said to be refused rather than ignored',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: collectionWith(`${PREFIX}hash`, { field: 'pw', type: 'string', meta: { special: ['hash'] } }),
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedMessage:
      '"fields.1.meta.special": datagate does not do "hash" for the field "pw", so it is refused rather than ignored.',
  },
  {
    name: 'a meta that is no object is said to be an object or null',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: collectionWith(`${PREFIX}meta_text`, { field: 't', type: 'text' }, ['note']),
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedMessage: '"meta" must be a JSON object or null.',
  },
  {
    name: 'an auto-increment datagate would not make is said to be so',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: collectionWith(`${PREFIX}counted`, {
      field: 'n',
      type: 'integer',
      schema: { has_auto_increment: true },
    }),
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedMessage:
      '"fields.1.schema.has_auto_increment" must be false: here an integer or bigInteger primary key without a default counts by itself (its keys may still be given), and no other field does.',
  },
  {
    name: 'a singleton is said to be what datagate does not have',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: collectionWith(`${PREFIX}singleton`, { field: 't', type: 'text' }, { singleton: true }),
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedMessage: '"meta.singleton" must be false: datagate has no singleton collections.',
  },
];

const FIELD_PATH = `/fields/${ARTICLES}`;

/** PATCH /fields/:collection/:field, and POST /fields, on the collection the first test makes. */
const FIELD_ROWS: Scenario[] = [
  {
    name: 'POST /fields with a refused special → 400 naming meta.special, no column added',
    method: 'POST',
    path: FIELD_PATH,
    as: 'admin',
    body: { field: 'secret', type: 'string', meta: { special: ['conceal'] } },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'meta.special',
  },
  {
    name: '… and the column was not added → 404',
    method: 'GET',
    path: `${FIELD_PATH}/secret`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'PATCH of a field asking "required" of a nullable column → 400 naming meta.required',
    method: 'PATCH',
    path: `${FIELD_PATH}/body`,
    as: 'admin',
    body: { meta: { required: true } },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'meta.required',
  },
  {
    name: 'PATCH of a field asking a special datagate does not do there → 400 naming meta.special',
    method: 'PATCH',
    path: `${FIELD_PATH}/title`,
    as: 'admin',
    body: { meta: { special: ['date-created'] } },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'meta.special',
  },
  {
    name: 'PATCH of a field changing its column → 400: a column is dropped and added, not changed',
    method: 'PATCH',
    path: `${FIELD_PATH}/title`,
    as: 'admin',
    body: { schema: { default_value: 'x' } },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'schema',
  },
  {
    name: 'PATCH of a field that does not exist → 404 NOT_FOUND',
    method: 'PATCH',
    path: `${FIELD_PATH}/nothing`,
    as: 'admin',
    body: { meta: { note: 'x' } },
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'PATCH of a field of a collection that does not exist → 404 COLLECTION_NOT_FOUND',
    method: 'PATCH',
    path: `/fields/${PREFIX}nowhere/title`,
    as: 'admin',
    body: { meta: { note: 'x' } },
    expectedStatus: 404,
    expectedCode: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'PATCH of a field by a non-admin → 403',
    method: 'PATCH',
    path: `${FIELD_PATH}/title`,
    as: 'member',
    body: { meta: { note: 'x' } },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'PATCH of a field by an anonymous caller → 401',
    method: 'PATCH',
    path: `${FIELD_PATH}/title`,
    body: { meta: { note: 'x' } },
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
  },
  {
    name: 'PATCH of a collection asking a singleton → 400 naming meta.singleton',
    method: 'PATCH',
    path: `/collections/${ARTICLES}`,
    as: 'admin',
    body: { meta: { note: 'x', accountability: null, singleton: true } },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'meta.singleton',
  },
];

type Context = { app: TestApp; tokens: Record<string, string> };

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `Directus meta on ${backend}`,
)) {
  test.before(async (context) => {
    context.app = await startTestApp({ persistence: borrowed(await target.fresh()) });
    const admin = (await context.app.login(await context.app.seedAdmin())).access_token;
    const member = (await context.app.login(await context.app.createUser({ role: null }))).access_token;
    context.tokens = { admin, member };
  });
  test.after(async ({ app, tokens }) => {
    await app.request('DELETE', `/collections/${ARTICLES}`, { token: tokens.admin });
    await app.close();
    await target.dispose();
  });

  test('createCollection as Directus sends it: presentation taken and not kept, accountability set with the table', async ({
    app,
    tokens,
  }) => {
    const created = await app.request('POST', '/collections', { token: tokens.admin, body: DIRECTUS_STYLE });
    assert.is(created.status, 200, created.text);
    const view = created.body as CollectionView;
    assert.equal(view.meta, { accountability: 'activity', realtime_watch: false });
    assert.equal(
      view.fields.map((field) => [field.field, field.meta]),
      DIRECTUS_STYLE.fields.map((field) => [field.field, null]),
    );
    // Read again from the database, not from the answer: the setting went with the table.
    assert.is((await app.request('POST', '/utils/cache/clear', { token: tokens.admin })).status, 204);
    const read = await app.request('GET', `/collections/${ARTICLES}`, { token: tokens.admin });
    assert.equal(read.body, view);
  });

  for (const row of [...REFUSED_CREATES, ...MESSAGES])
    test(row.name, ({ app, tokens }) => runScenario(app, tokens, row));

  test('none of the refused bodies made a collection', async ({ app, tokens }) => {
    const listed = await app.request('GET', '/collections', { token: tokens.admin });
    const names = (listed.body as CollectionView[]).map((collection) => collection.collection);
    assert.equal(
      names.filter((name) => name.startsWith(PREFIX)),
      [ARTICLES],
    );
  });

  test('createField with Directus meta → 200, the field with meta null', async ({ app, tokens }) => {
    const created = await app.request('POST', FIELD_PATH, {
      token: tokens.admin,
      body: {
        field: 'subtitle',
        type: 'string',
        meta: { interface: 'input', note: 'Optional', width: 'half' },
      },
    });
    assert.is(created.status, 200, created.text);
    assert.is((created.body as FieldView).meta, null);
  });

  test('updateField with presentation, or with what already holds for the field → 200, the field unchanged', async ({
    app,
    tokens,
  }) => {
    const changes: Array<[string, unknown]> = [
      ['title', { meta: { note: 'New note', width: 'half', hidden: true, interface: 'input' } }],
      ['title', { meta: { required: true } }],
      ['id', { meta: { special: ['uuid'], readonly: true } }],
      ['date_created', { meta: { special: ['date-created'] } }],
      ['body', { meta: null }],
      ['body', {}],
    ];
    for (const [field, body] of changes) {
      const before = await app.request('GET', `${FIELD_PATH}/${field}`, { token: tokens.admin });
      const patched = await app.request('PATCH', `${FIELD_PATH}/${field}`, { token: tokens.admin, body });
      assert.is(patched.status, 200, `${field} ${JSON.stringify(body)}: ${patched.text}`);
      assert.equal(patched.body, before.body, `${field} ${JSON.stringify(body)}`);
    }
  });

  for (const row of FIELD_ROWS) test(row.name, ({ app, tokens }) => runScenario(app, tokens, row));

  test('updateCollection: presentation is taken beside accountability, which changes; a refused body changes nothing', async ({
    app,
    tokens,
  }) => {
    const patch = (meta: unknown) =>
      app.request('PATCH', `/collections/${ARTICLES}`, { token: tokens.admin, body: { meta } });
    const changed = await patch({ note: 'Posts', icon: 'feed', accountability: null, singleton: false });
    assert.is(changed.status, 200, changed.text);
    assert.equal((changed.body as CollectionView).meta, { accountability: null, realtime_watch: false });
    assertError(
      await patch({ accountability: 'all', versioning: true }),
      400,
      'INVALID_PAYLOAD',
      'meta.versioning',
    );
    const read = await app.request('GET', `/collections/${ARTICLES}`, { token: tokens.admin });
    assert.is((read.body as CollectionView).meta.accountability, null, 'the refused body set nothing');
    assert.is((await patch({ note: 'only presentation' })).status, 200);
    assert.is((await patch(null)).status, 200);
  });

  test.run();
}
