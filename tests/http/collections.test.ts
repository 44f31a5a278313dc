import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { CollectionView, FieldView } from '../../src/application/collections/collection-view.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { type ErrorBody, runScenario, type Scenario } from './scenario.ts';

/** Names no other suite uses: database targets are shared by every suite of the process. */
const NAME = 'dg_every_type';
const HAND_MADE = 'dg_hand_made';

type Expected = {
  type: string;
  data_type: string;
  is_nullable: boolean;
  is_primary_key: boolean;
  is_unique: boolean;
  has_auto_increment_or_default: boolean;
  /** A RegExp where the backends print the same default differently (see the dedicated row). */
  default_value: string | RegExp | null;
  max_length: number | null;
};

const plain = (type: string, data_type: string): Expected => ({
  type,
  data_type,
  is_nullable: true,
  is_primary_key: false,
  is_unique: false,
  has_auto_increment_or_default: false,
  default_value: null,
  max_length: null,
});

/** Every field type of docs/api.md §7, each with what POST sends and what the view must then say. */
const COLUMNS: Array<{ body: Record<string, unknown>; expected: Expected }> = [
  {
    body: { field: 'id', type: 'integer', schema: { is_primary_key: true } },
    expected: {
      ...plain('integer', 'integer'),
      is_nullable: false,
      is_primary_key: true,
      is_unique: true,
      has_auto_increment_or_default: true,
    },
  },
  {
    body: { field: 'ref', type: 'uuid', schema: { is_unique: true } },
    expected: { ...plain('uuid', 'uuid'), is_unique: true },
  },
  {
    body: {
      field: 'code',
      type: 'string',
      schema: { max_length: 32, is_nullable: false, default_value: 'none' },
    },
    expected: {
      ...plain('string', 'character varying(32)'),
      is_nullable: false,
      has_auto_increment_or_default: true,
      default_value: /^'none'::character varying(\(32\))?$/,
      max_length: 32,
    },
  },
  {
    body: { field: 'label', type: 'string' },
    expected: { ...plain('string', 'character varying(255)'), max_length: 255 },
  },
  { body: { field: 'body', type: 'text' }, expected: plain('text', 'text') },
  {
    body: { field: 'quantity', type: 'integer', schema: { default_value: 42 } },
    expected: { ...plain('integer', 'integer'), has_auto_increment_or_default: true, default_value: '42' },
  },
  { body: { field: 'big', type: 'bigInteger' }, expected: plain('bigInteger', 'bigint') },
  { body: { field: 'ratio', type: 'float' }, expected: plain('float', 'double precision') },
  { body: { field: 'price', type: 'decimal' }, expected: plain('decimal', 'numeric') },
  {
    body: { field: 'active', type: 'boolean', schema: { is_nullable: false, default_value: false } },
    expected: {
      ...plain('boolean', 'boolean'),
      is_nullable: false,
      has_auto_increment_or_default: true,
      default_value: 'false',
    },
  },
  {
    body: { field: 'stamp', type: 'timestamp' },
    expected: plain('timestamp', 'timestamp without time zone'),
  },
  { body: { field: 'moment', type: 'dateTime' }, expected: plain('dateTime', 'timestamp with time zone') },
  { body: { field: 'day', type: 'date' }, expected: plain('date', 'date') },
  { body: { field: 'at', type: 'time' }, expected: plain('time', 'time without time zone') },
  { body: { field: 'doc', type: 'json' }, expected: plain('json', 'jsonb') },
];

const FIELD_NAMES = COLUMNS.map(({ body }) => body.field as string);

function assertEveryTypeView(body: unknown): void {
  const view = body as CollectionView;
  assert.is(view.collection, NAME);
  assert.is(view.primary_key, 'id');
  assert.equal(
    view.fields.map((field) => field.field),
    FIELD_NAMES,
  );
  for (const [index, { expected }] of COLUMNS.entries()) assertFieldView(view.fields[index], expected);
}

function assertFieldView(actual: FieldView | undefined, expected: Expected): void {
  assert.ok(actual, 'field missing');
  const { type, default_value, ...schema } = expected;
  assert.is(actual.collection, NAME, actual.field);
  assert.is(actual.type, type, actual.field);
  const { default_value: actualDefault, ...actualSchema } = actual.schema;
  assert.equal(actualSchema, schema, `schema of ${actual.field}`);
  if (default_value instanceof RegExp) assert.match(actualDefault ?? '', default_value, actual.field);
  else assert.is(actualDefault, default_value, `default of ${actual.field}`);
}

const namesOf = (body: unknown) => (body as CollectionView[]).map((view) => view.collection);

/** The contract of a refused payload: 400 and an errors body; which of the two codes is the code's call. */
function assertBadPayload(body: unknown): void {
  const { errors } = body as ErrorBody;
  assert.ok(Array.isArray(errors) && errors.length === 1, JSON.stringify(body));
  assert.ok(
    ['FAILED_VALIDATION', 'INVALID_PAYLOAD'].includes(errors[0]!.extensions.code),
    errors[0]!.extensions.code,
  );
}

const INVALID_NAMES = [
  '1abc',
  'a-b',
  'datagate_x',
  'DataGate_y',
  'a'.repeat(64),
  '"; drop table x; --',
  '',
  'a b',
];

/** A row of the table; `everywhere` rows also run on every database backend, the rest on memory only. */
type Row = Scenario & { everywhere?: true };

const adminRows: Row[] = [
  {
    name: 'admin creates a collection with every field type → 200 and its view',
    everywhere: true,
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: NAME, fields: COLUMNS.map(({ body }) => body) },
    expectedStatus: 200,
    expectedBody: assertEveryTypeView,
  },
  {
    name: 'GET /collections lists it, and never a system table',
    everywhere: true,
    method: 'GET',
    path: '/collections',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      const names = namesOf(body);
      assert.ok(names.includes(NAME), names.join());
      assert.not.ok(
        names.some((name) => name.toLowerCase().startsWith('datagate_')),
        names.join(),
      );
      assertEveryTypeView((body as CollectionView[]).find((view) => view.collection === NAME));
    },
  },
  {
    name: 'GET /collections takes no query parameters: fields and limit are ignored, as in Directus',
    everywhere: true,
    method: 'GET',
    path: '/collections?fields=collection&limit=1&sort=-collection',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) =>
      assertEveryTypeView((body as CollectionView[]).find((view) => view.collection === NAME)),
  },
  {
    name: 'GET /collections/:name → the same view',
    everywhere: true,
    method: 'GET',
    path: `/collections/${NAME}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: assertEveryTypeView,
  },
  {
    name: 'a string default reads back as PostgreSQL prints it, length included',
    everywhere: true,
    method: 'GET',
    path: `/fields/${NAME}/code`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) =>
      assert.is((body as FieldView).schema.default_value, "'none'::character varying(32)"),
  },
  {
    name: 'the new collection reads through /items at once, empty',
    everywhere: true,
    method: 'GET',
    path: `/items/${NAME}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, []),
  },
  {
    name: 'creating it again → 409 RECORD_NOT_UNIQUE on collection',
    everywhere: true,
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: NAME, fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }] },
    expectedStatus: 409,
    expectedCode: 'RECORD_NOT_UNIQUE',
    expectedField: 'collection',
  },
  ...INVALID_NAMES.map(
    (collection): Row => ({
      name: `an invalid name ${JSON.stringify(collection.length > 20 ? `${collection.slice(0, 8)}…(${collection.length})` : collection)} → 400`,
      everywhere: collection.startsWith('"') || collection === 'datagate_x' ? true : undefined,
      method: 'POST',
      path: '/collections',
      as: 'admin',
      body: { collection, fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }] },
      expectedStatus: 400,
      expectedBody: assertBadPayload,
    }),
  ),
  {
    name: 'no collection was made by the refused names',
    everywhere: true,
    method: 'GET',
    path: '/collections',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      for (const name of INVALID_NAMES) assert.not.ok(namesOf(body).includes(name), name);
    },
  },
  ...(['DgMixedCase', `dg_${'x'.repeat(60)}`] as const).flatMap((collection): Row[] => [
    {
      name: `a valid name kept as written (${collection.length} characters) → 200`,
      everywhere: true,
      method: 'POST',
      path: '/collections',
      as: 'admin',
      body: { collection, fields: [{ field: 'Id', type: 'integer', schema: { is_primary_key: true } }] },
      expectedStatus: 200,
      expectedBody: (body) => {
        assert.is((body as CollectionView).collection, collection);
        assert.is((body as CollectionView).primary_key, 'Id');
      },
    },
    {
      name: `…and it reads through /items (${collection.length} characters)`,
      everywhere: true,
      method: 'GET',
      path: `/items/${collection}?sort=Id`,
      as: 'admin',
      expectedStatus: 200,
      expectedBody: (body) => assert.equal(body, []),
    },
    {
      name: `…and drops (${collection.length} characters) → 204`,
      everywhere: true,
      method: 'DELETE',
      path: `/collections/${collection}`,
      as: 'admin',
      expectedStatus: 204,
    },
  ]),
  {
    name: 'a default that is no value of its type → 400 FAILED_VALIDATION naming the field',
    everywhere: true,
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: {
      collection: 'dg_bad_default',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'n', type: 'integer', schema: { default_value: 'abc' } },
      ],
    },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'n',
  },
  {
    name: 'a string default longer than the column → 400 FAILED_VALIDATION naming the field',
    everywhere: true,
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: {
      collection: 'dg_bad_default',
      fields: [{ field: 's', type: 'string', schema: { max_length: 2, default_value: 'abc' } }],
    },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 's',
  },
  {
    name: 'a reserved name is no collection to ask for either → 404 COLLECTION_NOT_FOUND',
    method: 'GET',
    path: '/collections/datagate_x',
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'an unknown field type → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_bad_type', fields: [{ field: 'id', type: 'money' }] },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'fields.0.type',
    expectedMessage:
      '"fields.0.type" must be one of "uuid", "string", "text", "integer", "bigInteger", "float", "decimal", "boolean", "timestamp", "dateTime", "date", "time" or "json".',
  },
  {
    name: 'the "unknown" pseudo-type cannot be created → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_bad_type', fields: [{ field: 'id', type: 'unknown' }] },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
  },
  {
    name: 'two primary keys → 400',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: {
      collection: 'dg_two_keys',
      fields: [
        { field: 'a', type: 'integer', schema: { is_primary_key: true } },
        { field: 'b', type: 'uuid', schema: { is_primary_key: true } },
      ],
    },
    expectedStatus: 400,
    expectedBody: assertBadPayload,
  },
  {
    name: 'no fields → 400',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_no_fields', fields: [] },
    expectedStatus: 400,
    expectedBody: assertBadPayload,
  },
  {
    name: 'fields missing altogether → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_no_fields' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
  },
  {
    name: 'one field listed twice → 400',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: {
      collection: 'dg_twice',
      fields: [
        { field: 'a', type: 'integer' },
        { field: 'a', type: 'text' },
      ],
    },
    expectedStatus: 400,
    expectedBody: assertBadPayload,
  },
  {
    name: 'an invalid field name → 400',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_bad_field', fields: [{ field: 'x"; drop table y; --', type: 'text' }] },
    expectedStatus: 400,
    expectedBody: assertBadPayload,
  },
  {
    name: "a field named as one of PostgreSQL's system columns → 400, not a clash with another field",
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_system_column', fields: [{ field: 'ctid', type: 'integer' }] },
    expectedStatus: 400,
    expectedBody: (body) => {
      assertBadPayload(body);
      assert.match(JSON.stringify(body), /system column/);
    },
  },
  {
    name: 'an unknown schema option → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_bad_option', fields: [{ field: 'a', type: 'text', schema: { is_magic: true } }] },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
  },
  {
    name: "Directus's folder (`schema: null`) → 400 INVALID_PAYLOAD: a collection is always a table",
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_folder', schema: null, fields: [{ field: 'a', type: 'text' }] },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'schema',
    expectedMessage: '"schema" must be {} (a collection is always a table: there are no folders).',
  },
  {
    name: "a member Directus's field meta does not have → 400 INVALID_PAYLOAD naming the member, not a field",
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_meta', fields: [{ field: 'a', type: 'text', meta: { interfaces: 'input' } }] },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'fields.0.meta.interfaces',
    expectedMessage: 'Unknown member "fields.0.meta.interfaces".',
  },
  {
    name: 'none of the refused payloads made a collection',
    method: 'GET',
    path: '/collections',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) =>
      assert.not.ok(namesOf(body).some((name) => name !== NAME && name.startsWith('dg_'))),
  },
  {
    name: "Directus's `schema: {}` (make a table) is taken → 200",
    method: 'POST',
    path: '/collections',
    as: 'admin',
    body: { collection: 'dg_directus_style', schema: {}, fields: [{ field: 'a', type: 'text' }] },
    expectedStatus: 200,
    expectedBody: (body) => assert.is((body as CollectionView).collection, 'dg_directus_style'),
  },
  {
    name: "the collection made with Directus's `schema: {}` is dropped again → 204",
    method: 'DELETE',
    path: '/collections/dg_directus_style',
    as: 'admin',
    expectedStatus: 204,
  },
  {
    name: 'POST /fields/:c adds a column → 200 and its view',
    everywhere: true,
    method: 'POST',
    path: `/fields/${NAME}`,
    as: 'admin',
    body: { field: 'extra', type: 'string', schema: { max_length: 8 } },
    expectedStatus: 200,
    expectedBody: (body) =>
      assertFieldView(body as FieldView, { ...plain('string', 'character varying(8)'), max_length: 8 }),
  },
  {
    name: 'GET /fields/:c lists every column, the new one last',
    everywhere: true,
    method: 'GET',
    path: `/fields/${NAME}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      const fields = body as FieldView[];
      assert.equal(
        fields.map((field) => field.field),
        [...FIELD_NAMES, 'extra'],
      );
      for (const [index, { expected }] of COLUMNS.entries()) assertFieldView(fields[index], expected);
    },
  },
  {
    name: "GET /fields lists every collection's fields, by collection, without the system tables (the SDK's readFields)",
    everywhere: true,
    method: 'GET',
    path: '/fields',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      const fields = body as FieldView[];
      assert.equal(
        fields.filter((field) => field.collection === NAME).map((field) => field.field),
        [...FIELD_NAMES, 'extra'],
      );
      const order = [...new Set(fields.map((field) => field.collection))];
      assert.equal(
        order,
        [...order].sort((a, b) => a.localeCompare(b)),
      );
      assert.not.ok(
        order.some((name) => name.startsWith('datagate_')),
        order.join(),
      );
    },
  },
  {
    name: 'GET /fields/:c takes no query parameters: fields and limit are ignored, as in Directus',
    everywhere: true,
    method: 'GET',
    path: `/fields/${NAME}?fields=field&limit=1`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      const fields = body as FieldView[];
      assert.equal(
        fields.map((field) => field.field),
        [...FIELD_NAMES, 'extra'],
      );
      for (const [index, { expected }] of COLUMNS.entries()) assertFieldView(fields[index], expected);
    },
  },
  {
    name: 'GET /fields/:c/:f → that column',
    everywhere: true,
    method: 'GET',
    path: `/fields/${NAME}/extra`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) =>
      assertFieldView(body as FieldView, { ...plain('string', 'character varying(8)'), max_length: 8 }),
  },
  {
    name: 'the new column shows through /items at once',
    everywhere: true,
    method: 'GET',
    path: `/items/${NAME}?fields=extra`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, []),
  },
  {
    name: 'adding a column that exists → 409 RECORD_NOT_UNIQUE',
    method: 'POST',
    path: `/fields/${NAME}`,
    as: 'admin',
    body: { field: 'extra', type: 'text' },
    expectedStatus: 409,
    expectedCode: 'RECORD_NOT_UNIQUE',
  },
  {
    name: 'adding a column of an unknown type → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: `/fields/${NAME}`,
    as: 'admin',
    body: { field: 'other', type: 'money' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'type',
    expectedMessage:
      '"type" must be one of "uuid", "string", "text", "integer", "bigInteger", "float", "decimal", "boolean", "timestamp", "dateTime", "date", "time" or "json".',
  },
  {
    name: 'adding a column whose options are of the wrong type → 400 INVALID_PAYLOAD saying what they must be',
    method: 'POST',
    path: `/fields/${NAME}`,
    as: 'admin',
    body: { field: 'other', type: 'string', schema: { is_nullable: 'yes' } },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'schema.is_nullable',
    expectedMessage: '"schema.is_nullable" must be true or false.',
  },
  {
    name: 'adding a column of length 0 → 400 INVALID_PAYLOAD saying the least it may be',
    method: 'POST',
    path: `/fields/${NAME}`,
    as: 'admin',
    body: { field: 'other', type: 'string', schema: { max_length: 0 } },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'schema.max_length',
    expectedMessage: '"schema.max_length" must be at least 1.',
  },
  {
    name: 'adding a second primary key → 400',
    method: 'POST',
    path: `/fields/${NAME}`,
    as: 'admin',
    body: { field: 'other', type: 'uuid', schema: { is_primary_key: true } },
    expectedStatus: 400,
    expectedBody: assertBadPayload,
  },
  {
    name: 'adding a column named as a PostgreSQL system column → 400 FAILED_VALIDATION, not 409',
    method: 'POST',
    path: `/fields/${NAME}`,
    as: 'admin',
    body: { field: 'xmin', type: 'integer' },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
  },
  {
    name: 'adding a column to an unknown collection → 404 COLLECTION_NOT_FOUND',
    method: 'POST',
    path: '/fields/dg_ghosts',
    as: 'admin',
    body: { field: 'other', type: 'text' },
    expectedStatus: 404,
    expectedCode: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'DELETE /fields/:c/:f → 204',
    everywhere: true,
    method: 'DELETE',
    path: `/fields/${NAME}/extra`,
    as: 'admin',
    expectedStatus: 204,
    expectedBody: (body) => assert.is(body, null),
  },
  {
    name: 'the dropped column is gone → 404 NOT_FOUND',
    everywhere: true,
    method: 'GET',
    path: `/fields/${NAME}/extra`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'the dropped column is no field for /items either → 400 INVALID_QUERY',
    everywhere: true,
    method: 'GET',
    path: `/items/${NAME}?fields=extra`,
    as: 'admin',
    expectedStatus: 400,
    expectedCode: 'INVALID_QUERY',
  },
  {
    name: 'dropping the primary key → 400',
    everywhere: true,
    method: 'DELETE',
    path: `/fields/${NAME}/id`,
    as: 'admin',
    expectedStatus: 400,
    expectedBody: assertBadPayload,
  },
  {
    name: 'dropping an unknown field → 404 NOT_FOUND',
    method: 'DELETE',
    path: `/fields/${NAME}/nope`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'the collection still has every original column',
    everywhere: true,
    method: 'GET',
    path: `/collections/${NAME}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: assertEveryTypeView,
  },
  ...(
    [
      ['GET', '/collections/dg_ghosts'],
      ['DELETE', '/collections/dg_ghosts'],
      ['GET', '/fields/dg_ghosts'],
      ['GET', '/fields/dg_ghosts/id'],
      ['DELETE', '/fields/dg_ghosts/id'],
    ] as const
  ).map(
    ([method, path]): Row => ({
      name: `${method} ${path} → 404 COLLECTION_NOT_FOUND`,
      method,
      path,
      as: 'admin',
      expectedStatus: 404,
      expectedCode: 'COLLECTION_NOT_FOUND',
    }),
  ),
  ...(['/collections/datagate_users', '/fields/datagate_users', '/fields/datagate_users/email'] as const).map(
    (path): Row => ({
      name: `a system table is no collection: GET ${path} → 404 COLLECTION_NOT_FOUND`,
      everywhere: true,
      method: 'GET',
      path,
      as: 'admin',
      expectedStatus: 404,
      expectedCode: 'COLLECTION_NOT_FOUND',
    }),
  ),
  ...(['/collections/datagate_users', '/fields/datagate_users/email'] as const).map(
    (path): Row => ({
      name: `a system table cannot be dropped: DELETE ${path} → 404 COLLECTION_NOT_FOUND`,
      everywhere: true,
      method: 'DELETE',
      path,
      as: 'admin',
      expectedStatus: 404,
      expectedCode: 'COLLECTION_NOT_FOUND',
    }),
  ),
  {
    name: 'POST /utils/cache/clear → 204',
    method: 'POST',
    path: '/utils/cache/clear',
    as: 'admin',
    expectedStatus: 204,
  },
];

/** Every endpoint of the table, against the existing collection, so only the caller can be the reason. */
const ENDPOINTS: Array<{ method: string; path: string; body?: unknown }> = [
  { method: 'GET', path: '/collections' },
  {
    method: 'POST',
    path: '/collections',
    body: {
      collection: 'dg_sneaky',
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
    },
  },
  { method: 'GET', path: `/collections/${NAME}` },
  { method: 'DELETE', path: `/collections/${NAME}` },
  { method: 'GET', path: '/fields' },
  { method: 'GET', path: `/fields/${NAME}` },
  { method: 'POST', path: `/fields/${NAME}`, body: { field: 'sneaky', type: 'text' } },
  { method: 'GET', path: `/fields/${NAME}/code` },
  { method: 'DELETE', path: `/fields/${NAME}/code` },
  { method: 'POST', path: '/utils/cache/clear' },
];

const accessRows: Row[] = [
  ...ENDPOINTS.flatMap(({ method, path, body }): Row[] => [
    {
      name: `non-admin ${method} ${path} → 403 FORBIDDEN`,
      method,
      path,
      body,
      as: 'member',
      expectedStatus: 403,
      expectedCode: 'FORBIDDEN',
    },
    {
      name: `anonymous ${method} ${path} → 401 UNAUTHENTICATED`,
      everywhere: method === 'DELETE' ? true : undefined,
      method,
      path,
      body,
      expectedStatus: 401,
      expectedCode: 'UNAUTHENTICATED',
    },
  ]),
  {
    name: 'a non-admin asking about an unknown collection is refused, not told it is missing → 403',
    method: 'GET',
    path: '/collections/dg_ghosts',
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'the refused calls changed nothing',
    everywhere: true,
    method: 'GET',
    path: '/collections',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      assert.not.ok(namesOf(body).includes('dg_sneaky'));
      assertEveryTypeView((body as CollectionView[]).find((view) => view.collection === NAME));
    },
  },
];

const dropRows: Row[] = [
  {
    name: 'DELETE /collections/:name → 204',
    everywhere: true,
    method: 'DELETE',
    path: `/collections/${NAME}`,
    as: 'admin',
    expectedStatus: 204,
    expectedBody: (body) => assert.is(body, null),
  },
  ...([`/collections/${NAME}`, `/fields/${NAME}`, `/items/${NAME}`] as const).map(
    (path): Row => ({
      name: `after the drop, GET ${path} → 404 COLLECTION_NOT_FOUND`,
      everywhere: true,
      method: 'GET',
      path,
      as: 'admin',
      expectedStatus: 404,
      expectedCode: 'COLLECTION_NOT_FOUND',
    }),
  ),
  {
    name: 'after the drop, GET /collections no longer lists it',
    everywhere: true,
    method: 'GET',
    path: '/collections',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.not.ok(namesOf(body).includes(NAME)),
  },
];

/** In order: create, misuse and inspect, refuse non-admins, then drop. */
const ROWS: Row[] = [...adminRows.slice(0, 4), ...accessRows, ...adminRows.slice(4), ...dropRows];

async function dropIfPresent(persistence: Persistence, names: ReadonlyArray<string>) {
  const { collections } = await persistence.schema.refresh();
  for (const name of names) if (collections.has(name)) await persistence.schemaEditor.dropCollection(name);
}

type Context = { app: TestApp; tokens: Record<string, string> };

for (const [target, collections] of suitePerBackend<Context>(
  backends(),
  (backend) => `/collections, /fields and /utils/cache/clear on ${backend}`,
)) {
  collections.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await dropIfPresent(persistence, [NAME, HAND_MADE]);
    context.app = await startTestApp({ persistence });
    const admin = await context.app.seedAdmin();
    const role = await context.app.createRole({ name: 'Member' });
    const member = await context.app.createUser({ role: role.id });
    context.tokens = {
      admin: (await context.app.login(admin)).access_token,
      member: (await context.app.login(member)).access_token,
    };
  });
  collections.after(async ({ app }) => {
    await dropIfPresent(app.persistence, [NAME, HAND_MADE]);
    await app.close();
    await target.dispose();
  });

  const rows = target.name === 'memory' ? ROWS : ROWS.filter((row) => row.everywhere);
  for (const row of rows) {
    collections(row.name, ({ app, tokens }) => runScenario(app, tokens, row));
  }

  if (target.name !== 'memory') {
    collections('refused names left no table behind in the database', async ({ app }) => {
      const db = (app.persistence as MikroOrmPersistence).orm.em.fork().getKysely();
      const { rows: found } = await sql<{ table_name: string }>`
        select table_name from information_schema.tables
        where table_name in (${sql.join(INVALID_NAMES)}) or table_name = 'x'`.execute(db);
      assert.equal(found, []);
    });

    collections(
      'a table made by hand in SQL appears, at the latest after POST /utils/cache/clear',
      async ({ app, tokens }) => {
        const db = (app.persistence as MikroOrmPersistence).orm.em.fork().getKysely();
        await sql`create table ${sql.id(HAND_MADE)} (id integer primary key, note text not null default 'hi')`.execute(
          db,
        );
        await sql`insert into ${sql.id(HAND_MADE)} (id) values (7)`.execute(db);

        // On a PostgreSQL server the change feed may show it before the clear (docs/decisions/0015).
        const clear = await app.request('POST', '/utils/cache/clear', { token: tokens.admin });
        assert.is(clear.status, 204, clear.text);
        assert.is(clear.text, '');

        const after = await app.request('GET', '/collections', { token: tokens.admin });
        assert.ok(namesOf(after.body).includes(HAND_MADE), 'invisible after the clear');
        const view = await app.request('GET', `/collections/${HAND_MADE}`, { token: tokens.admin });
        assert.is(view.status, 200, view.text);
        const collection = view.body as CollectionView;
        assert.is(collection.primary_key, 'id');
        assert.equal(
          collection.fields.map((field) => [field.field, field.type, field.schema.data_type]),
          [
            ['id', 'integer', 'integer'],
            ['note', 'text', 'text'],
          ],
        );
        const items = await app.request('GET', `/items/${HAND_MADE}`, { token: tokens.admin });
        assert.is(items.status, 200, items.text);
        assert.equal(items.body, [{ id: 7, note: 'hi' }]);

        const drop = await app.request('DELETE', `/collections/${HAND_MADE}`, { token: tokens.admin });
        assert.is(drop.status, 204, drop.text);
      },
    );
  }

  collections.run();
}
