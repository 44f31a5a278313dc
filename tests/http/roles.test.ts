import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RoleView } from '../../src/application/roles/role-view.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError, runScenario, type Scenario } from './scenario.ts';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

const roles = suite<{ app: TestApp; tokens: Record<string, string> }>('/roles');

roles.before(async (context) => {
  context.app = await startTestApp();
  const admin = await context.app.seedAdmin();
  await context.app.createRole({ name: 'Editors' });
  const member = await context.app.createUser();
  context.tokens = {
    admin: (await context.app.login(admin)).access_token,
    member: (await context.app.login(member)).access_token,
  };
});
roles.after(({ app }) => app.close());

const rows: Scenario[] = [
  {
    name: 'admin_access of the wrong type → 400 INVALID_PAYLOAD saying what it must be',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { name: 'Typo', admin_access: 'yes' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'admin_access',
    expectedMessage: '"admin_access" must be true or false.',
  },
  {
    name: 'anonymous list → 401 UNAUTHENTICATED',
    method: 'GET',
    path: '/roles',
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
  },
  {
    name: 'non-admin list → 403 FORBIDDEN',
    method: 'GET',
    path: '/roles',
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'non-admin create → 403 FORBIDDEN',
    method: 'POST',
    path: '/roles',
    as: 'member',
    body: { name: 'Sneaky', admin_access: true },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'non-admin update → 403 FORBIDDEN',
    method: 'PATCH',
    path: `/roles/${MISSING_ID}`,
    as: 'member',
    body: { admin_access: true },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'admin list → a bare array of roles',
    method: 'GET',
    path: '/roles',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      const list = body as RoleView[];
      assert.equal(list.map((role) => role.name).sort(), ['Administrator', 'Editors']);
      for (const role of list)
        assert.equal(Object.keys(role).sort(), ['admin_access', 'description', 'id', 'name']);
    },
  },
  {
    name: 'create with a taken name → 409 RECORD_NOT_UNIQUE on name',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { name: 'Editors' },
    expectedStatus: 409,
    expectedCode: 'RECORD_NOT_UNIQUE',
    expectedField: 'name',
  },
  {
    name: 'create without name → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { description: 'x' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'name',
  },
  {
    name: 'create with an unknown key → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { name: 'X', icon: 'star' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'icon',
  },
  {
    name: 'create with admin_access of the wrong type → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { name: 'X', admin_access: 'yes' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'admin_access',
  },
  {
    name: 'create with a blank name → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { name: '   ' },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'name',
  },
  {
    name: 'create with a description over 1,000 characters → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { name: 'Wordy', description: 'x'.repeat(1001) },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'description',
  },
  {
    name: 'create with a name over 100 characters → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    body: { name: 'x'.repeat(101) },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'name',
  },
  {
    name: 'unknown id → 404',
    method: 'GET',
    path: `/roles/${MISSING_ID}`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'malformed id → 404',
    method: 'PATCH',
    path: '/roles/123',
    as: 'admin',
    body: { name: 'X' },
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'DELETE of an unknown id → 404',
    method: 'DELETE',
    path: `/roles/${MISSING_ID}`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
];
for (const row of rows) roles(row.name, ({ app, tokens }) => runScenario(app, tokens, row));

roles(
  'names and descriptions count characters, not UTF-16 units, up to their limits',
  async ({ app, tokens }) => {
    const created = await app.request('POST', '/roles', {
      token: tokens.admin,
      body: { name: '🦉'.repeat(100), description: '🦉'.repeat(1000) },
    });
    assert.is(created.status, 200, created.text);
    const id = (created.body as RoleView).id;
    const longer = await app.request('PATCH', `/roles/${id}`, {
      token: tokens.admin,
      body: { description: '🦉'.repeat(1001) },
    });
    assertError(longer, 400, 'FAILED_VALIDATION', 'description');
    const kept = await app.request('GET', `/roles/${id}`, { token: tokens.admin });
    assert.is((kept.body as RoleView).description, '🦉'.repeat(1000));
    await app.request('DELETE', `/roles/${id}`, { token: tokens.admin });
  },
);

roles('create → 200 role; GET, PATCH and DELETE (204) work on it', async ({ app, tokens }) => {
  const created = await app.request('POST', '/roles', {
    token: tokens.admin,
    body: { name: ' Reviewers ', description: 'Read things' },
  });
  assert.is(created.status, 200);
  const role = created.body as RoleView;
  assert.equal(
    { ...role, id: 'x' },
    { id: 'x', name: 'Reviewers', description: 'Read things', admin_access: false },
  );

  const shown = await app.request('GET', `/roles/${role.id}`, { token: tokens.admin });
  assert.equal(shown.body, role);
  const patched = await app.request('PATCH', `/roles/${role.id}`, {
    token: tokens.admin,
    body: { description: null, admin_access: true },
  });
  assert.equal(patched.body, { ...role, description: null, admin_access: true });

  const deleted = await app.request('DELETE', `/roles/${role.id}`, { token: tokens.admin });
  assert.is(deleted.status, 204);
  assert.is(deleted.text, '');
  assertError(await app.request('GET', `/roles/${role.id}`, { token: tokens.admin }), 404, 'NOT_FOUND');
});

roles.run();
