import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PermissionView } from '../../src/application/permissions/permission-view.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError, runScenario, type Scenario } from './scenario.ts';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

type Context = { app: TestApp; tokens: Record<string, string>; editorRole: string };

const permissions = suite<Context>('/permissions');

permissions.before(async (context) => {
  context.app = await startTestApp();
  const admin = await context.app.seedAdmin();
  const created = await context.app.request('POST', '/collections', {
    token: (await context.app.login(admin)).access_token,
    body: {
      collection: 'articles',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'title', type: 'string' },
      ],
    },
  });
  assert.is(created.status, 200, created.text);
  context.editorRole = (await context.app.createRole({ name: 'Editors' })).id;
  const member = await context.app.createUser({ role: context.editorRole });
  context.tokens = {
    admin: (await context.app.login(admin)).access_token,
    member: (await context.app.login(member)).access_token,
  };
});
permissions.after(({ app }) => app.close());

const valid = { role: null, collection: 'cargos', action: 'read', fields: ['*'] };

/** A filter of `depth` levels (the top object is the first, each `_and` adds one), as §4a counts them. */
const nestedFilter = (depth: number): object => {
  let filter: object = { id: { _eq: 1 } };
  for (let level = 1; level < depth; level++) filter = { _and: [filter] };
  return filter;
};
const manyConditions = (count: number) => ({
  _or: Array.from({ length: count }, (_, n) => ({ id: { _eq: n } })),
});

const rows: Scenario[] = [
  {
    name: 'anonymous list → 401 UNAUTHENTICATED',
    method: 'GET',
    path: '/permissions',
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
  },
  {
    name: 'non-admin list → 403 FORBIDDEN',
    method: 'GET',
    path: '/permissions',
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'non-admin create → 403 FORBIDDEN',
    method: 'POST',
    path: '/permissions',
    as: 'member',
    body: valid,
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'non-admin delete → 403 FORBIDDEN',
    method: 'DELETE',
    path: `/permissions/${MISSING_ID}`,
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'create with an unknown key → 400 INVALID_PAYLOAD naming it',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, policy: 'x' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'policy',
  },
  {
    name: 'a rule that is no object → 400 INVALID_PAYLOAD saying what it must be',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, permissions: 5 },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'permissions',
    expectedMessage: '"permissions" must be a JSON object or null.',
  },
  {
    name: 'create without role (null must be explicit) → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { collection: 'cargos', action: 'read' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'role',
  },
  {
    name: 'create with a role that is no UUID → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, role: 'editors' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'role',
  },
  {
    name: 'create with a filter that is no object → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, permissions: [{ id: { _eq: 1 } }] },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'permissions',
  },
  ...[5, true, {}, ['id', 5], [['id']]].map(
    (fields): Scenario => ({
      name: `create with fields ${JSON.stringify(fields)}, neither a list of names nor their string → 400 INVALID_PAYLOAD`,
      method: 'POST',
      path: '/permissions',
      as: 'admin',
      body: { ...valid, fields },
      expectedStatus: 400,
      expectedCode: 'INVALID_PAYLOAD',
      expectedField: 'fields',
      expectedMessage: '"fields" must be a list of field names, a comma-separated string of them, or null.',
    }),
  ),
  ...(
    [
      ['*', ['*']],
      ['id,title', ['id', 'title']],
      ['title', ['title']],
      [' id , title ', ['id', 'title']],
      ['', []],
    ] as const
  ).map(
    ([fields, stored]): Scenario => ({
      name: `create with Directus's string of fields ${JSON.stringify(fields)} → 200, stored as the list ${JSON.stringify(stored)}`,
      method: 'POST',
      path: '/permissions',
      as: 'admin',
      body: { ...valid, collection: 'articles', fields },
      expectedStatus: 200,
      expectedBody: (body) => assert.equal((body as PermissionView).fields, stored),
    }),
  ),
  {
    name: "create with Directus's string naming a field the collection lacks → 400 FAILED_VALIDATION, as its list would",
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, collection: 'articles', fields: 'id,subtitle' },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'fields',
  },
  {
    name: 'create with an unknown role → 400 FAILED_VALIDATION on role',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, role: MISSING_ID },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'role',
  },
  {
    name: 'create with an unknown action → 400 FAILED_VALIDATION on action',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, action: 'share' },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'action',
  },
  {
    name: 'create on a system table → 400 FAILED_VALIDATION on collection',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, collection: 'datagate_users' },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'collection',
  },
  {
    name: 'fields naming a field over 63 bytes, which no column can have → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, collection: 'not_created_yet', fields: ['é'.repeat(32)] },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'fields',
  },
  {
    name: 'fields naming more than 1,600 fields, more than a table has → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: {
      ...valid,
      collection: 'not_created_yet',
      fields: Array.from({ length: 1601 }, (_, n) => `f${n}`),
    },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'fields',
  },
  {
    name: 'fields of 1,600 names of 63 bytes, for a collection to come → 200',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: {
      ...valid,
      collection: 'not_created_yet',
      fields: Array.from({ length: 1600 }, (_, n) => `f${n}`.padEnd(63, '_')),
    },
    expectedStatus: 200,
  },
  {
    name: 'a rule nested deeper than a filter may be, for a collection to come → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, collection: 'not_created_yet', permissions: nestedFilter(11) },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'permissions',
    expectedMessage: 'The filter is nested deeper than 10 levels.',
  },
  {
    name: 'a validation of more conditions than a filter may have, for a collection to come → 400',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, collection: 'not_created_yet', action: 'create', validation: manyConditions(501) },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'validation',
    expectedMessage: 'The filter has more than 500 conditions.',
  },
  {
    name: 'rules of 10 levels and 500 conditions, for a collection to come → 200',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: {
      ...valid,
      collection: 'not_created_yet',
      action: 'update',
      permissions: nestedFilter(10),
      validation: manyConditions(500),
    },
    expectedStatus: 200,
  },
  {
    name: 'presets of more fields than a table has, for a collection to come → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: {
      ...valid,
      collection: 'not_created_yet',
      action: 'create',
      presets: Object.fromEntries(Array.from({ length: 1601 }, (_, n) => [`f${n}`, n])),
    },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'presets',
  },
  {
    name: 'a preset of a field name no column can have, for a collection to come → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: { ...valid, collection: 'not_created_yet', action: 'create', presets: { ['é'.repeat(32)]: 1 } },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'presets',
  },
  {
    name: 'presets of 1,600 fields of 63-byte names, for a collection to come → 200',
    method: 'POST',
    path: '/permissions',
    as: 'admin',
    body: {
      ...valid,
      collection: 'not_created_yet',
      action: 'create',
      presets: Object.fromEntries(Array.from({ length: 1600 }, (_, n) => [`f${n}`.padEnd(63, '_'), n])),
    },
    expectedStatus: 200,
  },
  {
    name: 'unknown id → 404',
    method: 'GET',
    path: `/permissions/${MISSING_ID}`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'malformed id → 404',
    method: 'PATCH',
    path: '/permissions/123',
    as: 'admin',
    body: { fields: null },
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'DELETE of an unknown id → 404',
    method: 'DELETE',
    path: `/permissions/${MISSING_ID}`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
];
for (const row of rows) permissions(row.name, ({ app, tokens }) => runScenario(app, tokens, row));

permissions(
  'create → 200 permission; GET, list, PATCH and DELETE (204) work on it',
  async ({ app, tokens, editorRole }) => {
    const sent = {
      role: editorRole,
      collection: 'cargos',
      action: 'read',
      permissions: { _and: [{ owner: { _eq: '$CURRENT_USER' } }, { is_deleted: { _eq: false } }] },
      fields: ['id', 'description'],
    };
    const created = await app.request('POST', '/permissions', { token: tokens.admin, body: sent });
    assert.is(created.status, 200, created.text);
    const permission = created.body as PermissionView;
    assert.equal({ ...permission, id: 'x' }, { id: 'x', validation: null, presets: null, ...sent });

    assert.equal(
      (await app.request('GET', `/permissions/${permission.id}`, { token: tokens.admin })).body,
      permission,
    );
    const listed = (await app.request('GET', '/permissions', { token: tokens.admin }))
      .body as PermissionView[];
    assert.equal(
      listed.find((p) => p.id === permission.id),
      permission,
    );

    const patched = await app.request('PATCH', `/permissions/${permission.id}`, {
      token: tokens.admin,
      body: { permissions: null, presets: { is_deleted: false } },
    });
    assert.equal(patched.body, { ...permission, permissions: null, presets: { is_deleted: false } });
    const starred = await app.request('PATCH', `/permissions/${permission.id}`, {
      token: tokens.admin,
      body: { fields: '*' },
    });
    assert.equal(
      starred.body,
      { ...(patched.body as PermissionView), fields: ['*'] },
      'PATCH reads the string too',
    );

    const deleted = await app.request('DELETE', `/permissions/${permission.id}`, { token: tokens.admin });
    assert.is(deleted.status, 204);
    assert.is(deleted.text, '');
    assertError(
      await app.request('GET', `/permissions/${permission.id}`, { token: tokens.admin }),
      404,
      'NOT_FOUND',
    );
  },
);

permissions(
  'a preset for a field the server sets → 400 FAILED_VALIDATION naming the preset, nothing stored',
  async ({ app, tokens, editorRole }) => {
    const created = await app.request('POST', '/collections', {
      token: tokens.admin,
      body: {
        collection: 'stamped',
        fields: [
          { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
          { field: 'title', type: 'string' },
          { field: 'date_created', type: 'timestamp' },
          { field: 'user_created', type: 'uuid' },
          { field: 'date_updated', type: 'timestamp' },
          { field: 'user_updated', type: 'uuid' },
        ],
      },
    });
    assert.is(created.status, 200, created.text);
    const grant = { role: editorRole, collection: 'stamped', action: 'create', fields: ['title'] };
    const stored = async () =>
      ((await app.request('GET', '/permissions', { token: tokens.admin })).body as PermissionView[]).filter(
        (permission) => permission.collection === 'stamped',
      );
    const cases: Array<[string, Record<string, unknown>]> = [
      ['date_created', { date_created: '2000-01-01T00:00:00' }],
      ['user_created', { title: 'fine', user_created: '$CURRENT_USER' }],
      ['date_updated', { date_updated: '$NOW' }],
      ['user_updated', { user_updated: MISSING_ID }],
      // A uuid key without a database default: the server generates it for each new item.
      ['id', { id: MISSING_ID }],
    ];
    for (const [named, presets] of cases) {
      const refused = await app.request('POST', '/permissions', {
        token: tokens.admin,
        body: { ...grant, presets },
      });
      assertError(refused, 400, 'FAILED_VALIDATION', 'presets');
      assert.match((refused.body as { errors: Array<{ message: string }> }).errors[0]!.message, `"${named}"`);
    }
    assert.equal(await stored(), []);
    // On a change too: the whole permission as it would be stored is checked.
    const fine = await app.request('POST', '/permissions', {
      token: tokens.admin,
      body: { ...grant, presets: { title: 'untitled' } },
    });
    assert.is(fine.status, 200, fine.text);
    const { id } = fine.body as PermissionView;
    const patched = await app.request('PATCH', `/permissions/${id}`, {
      token: tokens.admin,
      body: { presets: { title: 'untitled', date_created: '2000-01-01T00:00:00' } },
    });
    assertError(patched, 400, 'FAILED_VALIDATION', 'presets');
    assert.equal(
      (await stored()).map((permission) => permission.presets),
      [{ title: 'untitled' }],
    );
    // A file's facts are the server's too (docs/api.md §15).
    const files = await app.request('POST', '/permissions', {
      token: tokens.admin,
      body: {
        role: editorRole,
        collection: 'datagate_files',
        action: 'create',
        presets: { uploaded_by: null },
      },
    });
    assertError(files, 400, 'FAILED_VALIDATION', 'presets');
    await app.request('DELETE', `/permissions/${id}`, { token: tokens.admin });
    await app.persistence.schemaEditor.dropCollection('stamped');
  },
);

permissions('deleting a role deletes its permissions', async ({ app, tokens }) => {
  const role = await app.createRole();
  const created = await app.request('POST', '/permissions', {
    token: tokens.admin,
    body: { ...valid, role: role.id },
  });
  const { id } = created.body as PermissionView;
  assert.is((await app.request('DELETE', `/roles/${role.id}`, { token: tokens.admin })).status, 204);
  assertError(await app.request('GET', `/permissions/${id}`, { token: tokens.admin }), 404, 'NOT_FOUND');
});

permissions.run();
