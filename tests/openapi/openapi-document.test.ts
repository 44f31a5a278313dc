import * as assert from 'uvu/assert';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import { cargosSchema, field } from '../support/cargos-schema.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { addTable, dropTable } from './tables.ts';
import { assertValidOpenApi } from './valid-openapi.ts';

type Schema = {
  type?: string | string[];
  format?: string;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
} & Record<string, unknown>;
type Document = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema> };
};

/** A second collection: a NOT NULL column nothing fills, and a role that may see only part of it. */
const secretsSchema: CollectionSchema = {
  name: 'secrets',
  primaryKey: 'id',
  fields: [
    field('id', 'uuid', 'uuid', { nullable: false, isPrimaryKey: true, isUnique: true }),
    field('label', 'string', 'character varying(64)', { nullable: false, maxLength: 64 }),
    field('note', 'text', 'text'),
  ],
};

const OPERATOR_READS = ['id', 'date_created', 'description', 'temperature'];
const OPERATOR_CREATES = ['description', 'temperature'];
const PUBLIC_PATHS = [
  '/auth/login',
  '/auth/refresh',
  '/auth/logout',
  '/server/health',
  '/server/ping',
  '/server/specs/oas',
];
/** The history's reads: anyone, seeing what their read permissions let them (docs/api.md §14). */
const HISTORY_PATHS = ['/activity', '/activity/{record}', '/revisions', '/revisions/{record}'];
const USER_PATHS = ['/users/me'];
/** The files' paths: only for a caller with a permission on the files collection (docs/api.md §15). */
const FILE_PATHS = ['/files', '/files/{id}', '/assets/{id}', '/assets/{id}/{filename}'];
const ADMIN_PATHS = [
  '/users',
  '/users/{id}',
  '/roles',
  '/roles/{id}',
  '/permissions',
  '/permissions/{id}',
  '/collections',
  '/collections/{collection}',
  '/fields/{collection}',
  '/fields/{collection}/{field}',
  '/utils/cache/clear',
  '/server/info',
];

/** The schema's alternatives: a nullable value is `anyOf` the value and null. */
const alternativesOf = (schema: Schema): Schema[] =>
  schema.anyOf ? schema.anyOf.flatMap(alternativesOf) : [schema];
const typesOf = (schema: Schema) =>
  [...new Set(alternativesOf(schema).flatMap((option) => option.type ?? []))].sort();
const keywordOf = (schema: Schema, key: string) =>
  alternativesOf(schema).find((option) => option[key] !== undefined)?.[key];

type Context = { app: TestApp; admin: string; operator: string };

const methodsOf = (document: Document, path: string) =>
  Object.keys(document.paths[path] ?? {})
    .filter((key) => key !== 'parameters')
    .sort();
const propertiesOf = (document: Document, schema: string) =>
  Object.keys(document.components.schemas[schema]?.properties ?? {});

for (const [target, oas] of suitePerBackend<Context>(
  backends(),
  (backend) => `GET /server/specs/oas on ${backend}`,
)) {
  oas.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    await addTable(persistence, cargosSchema);
    await addTable(persistence, secretsSchema);
    context.app = await startTestApp({ persistence });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;

    const role = await context.app.createRole({ name: 'Operator' });
    const grants = [
      {
        role: role.id,
        collection: 'cargos',
        action: 'read',
        permissions: { is_deleted: { _eq: false } },
        fields: OPERATOR_READS,
      },
      { role: role.id, collection: 'cargos', action: 'create', fields: OPERATOR_CREATES },
      { role: null, collection: 'secrets', action: 'read', fields: ['label'] },
    ];
    for (const grant of grants) {
      const created = await context.app.request('POST', '/permissions', {
        token: context.admin,
        body: grant,
      });
      assert.is(created.status, 200, created.text);
    }
    context.operator = (
      await context.app.login(await context.app.createUser({ role: role.id }))
    ).access_token;
  });
  oas.after(async ({ app }) => {
    await dropTable(app.persistence, 'cargos');
    await dropTable(app.persistence, 'secrets');
    await app.close();
    await target.dispose();
  });

  const documentFor = async (app: TestApp, token?: string): Promise<Document> => {
    const response = await app.request('GET', '/server/specs/oas', { token });
    assert.is(response.status, 200, response.text);
    return response.body as Document;
  };

  oas('the admin document is valid OpenAPI 3.1 with every operation on every collection', async (context) => {
    const document = await documentFor(context.app, context.admin);
    await assertValidOpenApi(document);
    assert.is(document.openapi, '3.1.0');
    for (const path of [...PUBLIC_PATHS, ...HISTORY_PATHS, ...USER_PATHS, ...ADMIN_PATHS])
      assert.ok(document.paths[path], path);
    for (const name of ['cargos', 'secrets']) {
      assert.equal(methodsOf(document, `/items/${name}`), ['delete', 'get', 'patch', 'post']);
      assert.equal(methodsOf(document, `/items/${name}/{id}`), ['delete', 'get', 'patch']);
    }
  });

  oas('column types become JSON Schema types, nullable columns allow null', async (context) => {
    const item = (await documentFor(context.app, context.admin)).components.schemas['cargos.Item']!;
    const expected: Record<string, { types: string[] } & Record<string, unknown>> = {
      id: { types: ['string'], format: 'uuid' },
      date_created: { types: ['null', 'string'], format: undefined },
      description: { types: ['null', 'string'] },
      // A float's NaN and ±Infinity are strings (docs/api.md §4).
      temperature: { types: ['null', 'number', 'string'], enum: ['NaN', 'Infinity', '-Infinity'] },
      is_deleted: { types: ['boolean'] },
      code: { types: ['null', 'string'], maxLength: 32 },
      crate_count: { types: ['integer', 'null'], maximum: 2147483647 },
      pallets: { types: ['integer', 'null'], minimum: -32768, maximum: 32767 },
      serial_number: { types: ['integer', 'null', 'string'], pattern: '^-?[0-9]+$' },
      weight_kg: { types: ['null', 'number', 'string'], maximum: 3.4028234663852886e38 },
      price: { types: ['null', 'number', 'string'] },
      // A date's or timestamp's ±infinity are strings besides the calendar form (docs/api.md §4).
      departed_at: { types: ['null', 'string'], format: 'date-time', enum: ['infinity', '-infinity'] },
      shipped_on: { types: ['null', 'string'], format: 'date', enum: ['infinity', '-infinity'] },
      pickup_time: { types: ['null', 'string'], format: undefined },
      manifest: { types: [] },
      user_created: { types: ['null', 'string'], format: 'uuid' },
      // text[]: modelled as an array by introspection; the in-memory fixture keeps it an unknown type.
      tags: { types: target.name === 'memory' ? ['null', 'string'] : ['array', 'null'] },
    };
    assert.equal(
      Object.keys(item.properties!),
      cargosSchema.fields.map((column) => column.name),
    );
    for (const [name, { types, ...keywords }] of Object.entries(expected)) {
      const actual = item.properties![name]!;
      assert.equal(typesOf(actual), types, `${name} types`);
      for (const [key, value] of Object.entries(keywords))
        assert.equal(keywordOf(actual, key), value, `${name}.${key}`);
    }
    const extra = (schema: object | undefined) =>
      (schema as { additionalProperties?: unknown }).additionalProperties;
    assert.type(extra(item), 'object', 'json(manifest, path) keys are allowed beside the columns');
    const secrets = (await documentFor(context.app)).components.schemas['secrets.Item'];
    assert.is(extra(secrets), false, 'no readable json field: no other keys');
  });

  oas(
    'write schemas leave out server-set and unwritable columns; required is what nothing fills',
    async (context) => {
      const { schemas } = (await documentFor(context.app, context.admin)).components;
      const creatable = Object.keys(schemas['cargos.Create']!.properties!);
      for (const name of ['date_created', 'date_updated', 'user_created'])
        assert.not.ok(creatable.includes(name), name);
      assert.is(creatable.includes('tags'), target.name !== 'memory', 'text[] is written from a JSON array');
      assert.ok(creatable.includes('id'), 'a key the client sends wins');
      assert.is(
        schemas['cargos.Create']!.required,
        undefined,
        'a uuid key is generated, is_deleted has a default',
      );
      assert.equal(schemas['secrets.Create']!.required, ['label']);
      assert.ok(
        Object.keys(schemas['cargos.Update']!.properties!).includes('id'),
        'the key may be sent back',
      );
    },
  );

  oas('a role sees only its collections, fields and operations', async (context) => {
    const document = await documentFor(context.app, context.operator);
    await assertValidOpenApi(document);
    for (const path of [...PUBLIC_PATHS, ...HISTORY_PATHS, ...USER_PATHS])
      assert.ok(document.paths[path], path);
    for (const path of ADMIN_PATHS) assert.not.ok(document.paths[path], `${path} is for admins`);
    const itemPaths = Object.keys(document.paths).filter((path) => path.startsWith('/items/'));
    assert.equal(itemPaths.sort(), ['/items/cargos', '/items/cargos/events', '/items/cargos/{id}']);
    assert.equal(methodsOf(document, '/items/cargos'), ['get', 'post']);
    assert.equal(methodsOf(document, '/items/cargos/{id}'), ['get']);
    assert.equal(propertiesOf(document, 'cargos.Item'), OPERATOR_READS);
    assert.equal(propertiesOf(document, 'cargos.Create'), OPERATOR_CREATES);
    assert.is(document.components.schemas['cargos.Update'], undefined);
    for (const path of FILE_PATHS) assert.not.ok(document.paths[path], `${path}: no files permission`);
    const text = JSON.stringify(document);
    for (const hidden of ['is_deleted', 'serial_number', 'secrets'])
      assert.not.ok(text.includes(hidden), hidden);
  });

  oas('anonymous callers see what the public role may do', async (context) => {
    const document = await documentFor(context.app);
    await assertValidOpenApi(document);
    for (const path of PUBLIC_PATHS) assert.ok(document.paths[path], path);
    // The routes answer the public caller, so the document shows them to it.
    for (const path of HISTORY_PATHS) assert.equal(methodsOf(document, path), ['get'], path);
    for (const path of ['/activity', '/revisions'])
      assert.is((await context.app.request('GET', path)).status, 200, path);
    for (const path of [...USER_PATHS, ...ADMIN_PATHS]) assert.not.ok(document.paths[path], path);
    const itemPaths = Object.keys(document.paths).filter((path) => path.startsWith('/items/'));
    // The public may not read the key (`fields: ['label']`): nothing naming a row by key, no change stream.
    assert.equal(itemPaths.sort(), ['/items/secrets']);
    assert.equal(methodsOf(document, '/items/secrets'), ['get']);
    assert.equal(propertiesOf(document, 'secrets.Item'), ['label']);
    assert.not.ok(JSON.stringify(document).includes('cargos'));
    for (const path of FILE_PATHS) assert.not.ok(document.paths[path], `${path}: no files permission`);
  });

  oas("the files' operations follow the caller's permissions on the files collection", async (context) => {
    const admin = await documentFor(context.app, context.admin);
    assert.equal(methodsOf(admin, '/files'), ['delete', 'get', 'patch', 'post']);
    assert.equal(methodsOf(admin, '/files/{id}'), ['delete', 'get', 'patch']);
    for (const path of ['/assets/{id}', '/assets/{id}/{filename}'])
      assert.equal(methodsOf(admin, path), ['get']);
    const granted = await context.app.request('POST', '/permissions', {
      token: context.admin,
      body: { role: null, collection: 'datagate_files', action: 'read', fields: ['id', 'title'] },
    });
    assert.is(granted.status, 200, granted.text);
    try {
      const reader = await documentFor(context.app);
      await assertValidOpenApi(reader);
      assert.equal(methodsOf(reader, '/files'), ['get']);
      assert.equal(methodsOf(reader, '/files/{id}'), ['get']);
      for (const path of ['/assets/{id}', '/assets/{id}/{filename}'])
        assert.equal(methodsOf(reader, path), ['get']);
      const operator = await documentFor(context.app, context.operator);
      for (const path of FILE_PATHS)
        assert.not.ok(operator.paths[path], `${path}: the public's, not the role's`);
    } finally {
      const id = (granted.body as { id: string }).id;
      await context.app.request('DELETE', `/permissions/${id}`, { token: context.admin });
    }
  });

  oas(
    'a reader of files who may not filter on their id is offered their bytes, not /files/{id}',
    async (context) => {
      const granted = await context.app.request('POST', '/permissions', {
        token: context.admin,
        body: { role: null, collection: 'datagate_files', action: 'read', fields: ['title'] },
      });
      assert.is(granted.status, 200, granted.text);
      try {
        const reader = await documentFor(context.app);
        await assertValidOpenApi(reader);
        assert.equal(methodsOf(reader, '/files'), ['get']);
        assert.not.ok(reader.paths['/files/{id}']);
        for (const path of ['/assets/{id}', '/assets/{id}/{filename}'])
          assert.equal(methodsOf(reader, path), ['get']);
        const byId = await context.app.request('GET', '/files/0190a000-0000-7000-8000-000000000001');
        assert.is(byId.status, 401, byId.text);
      } finally {
        const id = (granted.body as { id: string }).id;
        await context.app.request('DELETE', `/permissions/${id}`, { token: context.admin });
      }
    },
  );

  oas('import and revert are shown only to a caller with a collection to use them on', async (context) => {
    type Parameter = { name: string; in: string; schema: { enum?: string[] } };
    const importedInto = (document: Document) => {
      const operation = document.paths['/utils/import/{collection}']?.post as
        | { parameters: Parameter[] }
        | undefined;
      const collection = operation?.parameters.find((parameter) => parameter.in === 'path');
      return (collection?.schema.enum ?? []).sort();
    };
    const admin = await documentFor(context.app, context.admin);
    assert.equal(importedInto(admin), ['cargos', 'secrets']);
    assert.equal(methodsOf(admin, '/utils/revert/{revision}'), ['post']);

    const operator = await documentFor(context.app, context.operator);
    assert.equal(importedInto(operator), ['cargos'], 'only where it may create');
    assert.not.ok(operator.paths['/utils/revert/{revision}'], 'no collection it may read and update');

    const anonymous = await documentFor(context.app);
    for (const path of ['/utils/import/{collection}', '/utils/revert/{revision}'])
      assert.not.ok(anonymous.paths[path], `${path}: the public may create and update nothing`);

    const granted = await context.app.request('POST', '/permissions', {
      token: context.admin,
      body: { role: null, collection: 'secrets', action: 'update', fields: ['label'] },
    });
    assert.is(granted.status, 200, granted.text);
    try {
      const updater = await documentFor(context.app);
      await assertValidOpenApi(updater);
      assert.equal(methodsOf(updater, '/utils/revert/{revision}'), ['post']);
      assert.not.ok(updater.paths['/utils/import/{collection}'], 'still nothing to create');
    } finally {
      const id = (granted.body as { id: string }).id;
      await context.app.request('DELETE', `/permissions/${id}`, { token: context.admin });
    }
  });

  oas('the document follows the live schema: a field added through the API appears', async (context) => {
    const added = await context.app.request('POST', '/fields/secrets', {
      token: context.admin,
      body: { field: 'rating', type: 'bigInteger' },
    });
    assert.is(added.status, 200, added.text);
    const document = await documentFor(context.app, context.admin);
    await assertValidOpenApi(document);
    assert.equal(typesOf(document.components.schemas['secrets.Item']!.properties!.rating!), [
      'integer',
      'null',
      'string',
    ]);
    assert.equal(propertiesOf(await documentFor(context.app), 'secrets.Item'), ['label']);
  });

  oas(
    'info.x-realtime says whether realtime subscribers are sent changes, to any caller',
    async (context) => {
      assert.is((await documentFor(context.app)).info['x-realtime'], true);
      assert.is((await documentFor(context.app, context.operator)).info['x-realtime'], true);
      const off = await startTestApp({
        persistence: borrowed(context.app.persistence),
        env: { REALTIME_ENABLED: 'false' },
      });
      try {
        const document = await documentFor(off);
        await assertValidOpenApi(document);
        assert.is(document.info['x-realtime'], false);
      } finally {
        await off.close();
      }
    },
  );

  oas.run();
}
