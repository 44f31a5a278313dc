import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { UserView } from '../../src/application/users/user-view.ts';
import { type SeededUser, startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { assertError, runScenario, type Scenario } from './scenario.ts';

const STATIC_TOKEN = 'static-token-of-at-least-32-chars-000000';
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

type Context = {
  app: TestApp;
  admin: SeededUser;
  member: SeededUser;
  tokens: Record<string, string>;
};

const users = suite<Context>('/users');

users.before(async (context) => {
  context.app = await startTestApp();
  context.admin = await context.app.seedAdmin();
  context.member = await context.app.createUser({ email: 'member@example.com', first_name: 'Mem' });
  await context.app.createUser({ email: 'jos\u00e9@example.com' });
  context.tokens = {
    admin: (await context.app.login(context.admin)).access_token,
    member: (await context.app.login(context.member)).access_token,
  };
});
users.after(({ app }) => app.close());

const rows: Scenario[] = [
  {
    name: 'anonymous list → 401 UNAUTHENTICATED',
    method: 'GET',
    path: '/users',
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
    expectedHeaders: { 'www-authenticate': 'Bearer' },
  },
  {
    name: 'non-admin list → 403 FORBIDDEN',
    method: 'GET',
    path: '/users',
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'non-admin create → 403 FORBIDDEN',
    method: 'POST',
    path: '/users',
    as: 'member',
    body: { email: 'x@example.com', password: 'password-123', role: null },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'non-admin read of one user → 403 FORBIDDEN',
    method: 'GET',
    path: `/users/${MISSING_ID}`,
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'non-admin delete → 403 FORBIDDEN',
    method: 'DELETE',
    path: `/users/${MISSING_ID}`,
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'admin list → a bare array of users without password',
    method: 'GET',
    path: '/users',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      assert.ok(Array.isArray(body));
      const list = body as UserView[];
      assert.ok(list.length >= 2);
      for (const user of list) {
        assert.equal(Object.keys(user).sort(), [
          'email',
          'first_name',
          'id',
          'last_name',
          'role',
          'status',
          'token',
        ]);
      }
    },
  },
  {
    name: 'unknown id → 404 NOT_FOUND',
    method: 'GET',
    path: `/users/${MISSING_ID}`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'malformed id → 404 NOT_FOUND, even before authentication',
    method: 'GET',
    path: '/users/not-a-uuid',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'PATCH of an unknown id → 404',
    method: 'PATCH',
    path: `/users/${MISSING_ID}`,
    as: 'admin',
    body: { first_name: 'X' },
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'DELETE of an unknown id → 404',
    method: 'DELETE',
    path: `/users/${MISSING_ID}`,
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'create with a taken e-mail (other case) → 409 RECORD_NOT_UNIQUE on email',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'MEMBER@example.com', password: 'password-123', role: null },
    expectedStatus: 409,
    expectedCode: 'RECORD_NOT_UNIQUE',
    expectedField: 'email',
  },
  {
    name: 'create with a taken e-mail typed with a decomposed accent → 409 RECORD_NOT_UNIQUE on email',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'Jose\u0301@example.com', password: 'password-123', role: null },
    expectedStatus: 409,
    expectedCode: 'RECORD_NOT_UNIQUE',
    expectedField: 'email',
  },
  {
    name: 'create with an e-mail hiding a zero-width space → 400 FAILED_VALIDATION on email',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'member\u200b@example.com', password: 'password-123', role: null },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'email',
  },
  {
    name: 'create with an unknown key → 400 INVALID_PAYLOAD naming it',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new1@example.com', password: 'password-123', role: null, admin: true },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'admin',
  },
  {
    name: 'create without role → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new2@example.com', password: 'password-123' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'role',
  },
  {
    name: 'create with a role that is not a UUID → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new3@example.com', password: 'password-123', role: 'admins' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'role',
  },
  {
    name: 'create with an unknown role → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new4@example.com', password: 'password-123', role: MISSING_ID },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'role',
  },
  {
    name: 'create with an unknown status → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new5@example.com', password: 'password-123', role: null, status: 'banned' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'status',
  },
  {
    name: 'create with a bad e-mail → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'not-an-email', password: 'password-123', role: null },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'email',
  },
  {
    name: 'create with a short password → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new6@example.com', password: 'short', role: null },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'password',
  },
  {
    name: 'create with a static token under 32 characters → 400 FAILED_VALIDATION',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new7@example.com', password: 'password-123', role: null, token: 'too-short' },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'token',
  },
  {
    name: 'create with a static token holding a line break → 400 FAILED_VALIDATION: no header could carry it',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: { email: 'new8@example.com', password: 'password-123', role: null, token: `${STATIC_TOKEN}\n-x` },
    expectedStatus: 400,
    expectedCode: 'FAILED_VALIDATION',
    expectedField: 'token',
  },
  {
    name: 'create → 200 with the stored user, token masked, password never shown',
    method: 'POST',
    path: '/users',
    as: 'admin',
    body: {
      email: ' Fresh@Example.com ',
      password: 'password-123',
      role: null,
      first_name: 'Fresh',
      token: `${STATIC_TOKEN}-create`,
    },
    expectedStatus: 200,
    expectedBody: (body) => {
      const user = body as UserView;
      assert.is(user.email, 'fresh@example.com');
      assert.is(user.first_name, 'Fresh');
      assert.is(user.last_name, null);
      assert.is(user.status, 'active');
      assert.is(user.token, '**********');
      assert.not.ok('password' in user);
    },
  },
  {
    name: 'GET /users/me as a member → own record',
    method: 'GET',
    path: '/users/me',
    as: 'member',
    expectedStatus: 200,
    expectedBody: (body) => assert.is((body as UserView).email, 'member@example.com'),
  },
  {
    name: 'GET /users/me anonymous → 401 UNAUTHENTICATED',
    method: 'GET',
    path: '/users/me',
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
  },
  {
    name: 'GET /users/ME → 404: `me` is exact, `ME` an id that is no uuid',
    method: 'GET',
    path: '/users/ME',
    as: 'member',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'PATCH /users/me with own names → 200',
    method: 'PATCH',
    path: '/users/me',
    as: 'member',
    body: { first_name: 'Member', last_name: null },
    expectedStatus: 200,
    expectedBody: (body) => assert.is((body as UserView).first_name, 'Member'),
  },
  {
    name: 'PATCH /users/me of the role → 403 FORBIDDEN naming it',
    method: 'PATCH',
    path: '/users/me',
    as: 'member',
    body: { role: null },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
    expectedField: 'role',
  },
  {
    name: 'PATCH /users/me of a role that is not even a role id → 403 naming it, not 400 on its shape',
    method: 'PATCH',
    path: '/users/me',
    as: 'member',
    body: { first_name: 'A', role: 'x' },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
    expectedField: 'role',
  },
  {
    name: 'PATCH /users/me of a status or token of the wrong type → 403 naming it',
    method: 'PATCH',
    path: '/users/me',
    as: 'member',
    body: { status: 42, token: 7 },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
    expectedField: 'status',
  },
  {
    name: 'PATCH /users/me of the status → 403 FORBIDDEN',
    method: 'PATCH',
    path: '/users/me',
    as: 'member',
    body: { status: 'active' },
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
    expectedField: 'status',
  },
  {
    name: 'PATCH /users/me of an unknown field → 400 INVALID_PAYLOAD',
    method: 'PATCH',
    path: '/users/me',
    as: 'member',
    body: { nickname: 'x' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'nickname',
  },
  {
    name: 'PATCH /users/me anonymous → 401',
    method: 'PATCH',
    path: '/users/me',
    body: { first_name: 'x' },
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
  },
  {
    name: 'PATCH /users/me anonymous of an admin-only field → still 401, not 403',
    method: 'PATCH',
    path: '/users/me',
    body: { role: null },
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
  },
  {
    name: 'DELETE /users/me: a known path, a method it does not take → 405, Allow naming only what works',
    method: 'DELETE',
    path: '/users/me',
    as: 'member',
    expectedStatus: 405,
    expectedCode: 'METHOD_NOT_ALLOWED',
    expectedHeaders: { allow: 'HEAD, GET, PATCH' },
  },
];
for (const row of rows) users(row.name, ({ app, tokens }) => runScenario(app, tokens, row));

users(
  'GET /users/:id shows one user; PATCH changes it; DELETE answers 204 and it is gone',
  async ({ app, tokens }) => {
    const target = await app.createUser();
    const shown = await app.request('GET', `/users/${target.id}`, { token: tokens.admin });
    assert.is(shown.status, 200);
    assert.is((shown.body as UserView).email, target.email);
    const patched = await app.request('PATCH', `/users/${target.id}`, {
      token: tokens.admin,
      body: { last_name: 'Changed' },
    });
    assert.is(patched.status, 200);
    assert.is((patched.body as UserView).last_name, 'Changed');
    const deleted = await app.request('DELETE', `/users/${target.id}`, { token: tokens.admin });
    assert.is(deleted.status, 204);
    assert.is(deleted.text, '');
    assertError(await app.request('GET', `/users/${target.id}`, { token: tokens.admin }), 404, 'NOT_FOUND');
  },
);

users(
  'a static token with a non-ASCII character is refused when set, and nothing changes',
  async ({ app, tokens }) => {
    const target = await app.createUser();
    const refused = await app.request('PATCH', `/users/${target.id}`, {
      token: tokens.admin,
      body: { token: `${STATIC_TOKEN}-é` },
    });
    assertError(refused, 400, 'FAILED_VALIDATION');
    assert.is(
      (refused.body as { errors: Array<{ extensions: { field: string } }> }).errors[0]!.extensions.field,
      'token',
    );
    const shown = await app.request('GET', `/users/${target.id}`, { token: tokens.admin });
    assert.is((shown.body as UserView).token, null);
  },
);

users(
  'a static token set by an admin works, shows masked, and stops working once set to null',
  async ({ app, tokens }) => {
    const target = await app.createUser();
    const set = await app.request('PATCH', `/users/${target.id}`, {
      token: tokens.admin,
      body: { token: STATIC_TOKEN },
    });
    assert.is(set.status, 200);
    assert.is((set.body as UserView).token, '**********');
    const shown = await app.request('GET', `/users/${target.id}`, { token: tokens.admin });
    assert.is((shown.body as UserView).token, '**********');

    const me = await app.request('GET', '/users/me', { token: STATIC_TOKEN });
    assert.is(me.status, 200);
    assert.is((me.body as UserView).id, target.id);
    assert.is((me.body as UserView).token, '**********');

    assertError(
      await app.request('PATCH', `/users/${target.id}`, {
        token: tokens.admin,
        body: { token: 'x'.repeat(31) },
      }),
      400,
      'FAILED_VALIDATION',
      'token',
    );
    const cleared = await app.request('PATCH', `/users/${target.id}`, {
      token: tokens.admin,
      body: { token: null },
    });
    assert.is((cleared.body as UserView).token, null);
    assertError(await app.request('GET', '/users/me', { token: STATIC_TOKEN }), 401, 'INVALID_TOKEN');
  },
);

users('a suspended user’s static token → 401', async ({ app }) => {
  const token = `${STATIC_TOKEN}-suspended`;
  await app.createUser({ status: 'suspended', token });
  assertError(await app.request('GET', '/users/me', { token }), 401, 'USER_SUSPENDED');
});

users('PATCH with a taken e-mail → 409 RECORD_NOT_UNIQUE on email', async ({ app, tokens, admin }) => {
  const target = await app.createUser();
  assertError(
    await app.request('PATCH', `/users/${target.id}`, { token: tokens.admin, body: { email: admin.email } }),
    409,
    'RECORD_NOT_UNIQUE',
    'email',
  );
});

users.run();

// ---------------------------------------------------------------------------------------------
const passwords = suite('password changes');

passwords('changing one’s own password revokes one’s refresh tokens; the new one logs in', () =>
  withTestApp(async (app) => {
    const user = await app.createUser();
    const pair = await app.login(user);
    const changed = await app.request('PATCH', '/users/me', {
      token: pair.access_token,
      body: { password: 'brand-new-password' },
    });
    assert.is(changed.status, 200);
    assert.not.ok('password' in (changed.body as object));
    assertError(
      await app.request('POST', '/auth/refresh', { body: { refresh_token: pair.refresh_token } }),
      401,
      'INVALID_TOKEN',
    );
    assertError(await app.request('POST', '/auth/login', { body: user }), 401, 'INVALID_CREDENTIALS');
    await app.login({ email: user.email, password: 'brand-new-password' });
  }),
);

passwords('an admin setting a user’s password revokes that user’s refresh tokens', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const adminToken = (await app.login(admin)).access_token;
    const user = await app.createUser();
    const pair = await app.login(user);
    const changed = await app.request('PATCH', `/users/${user.id}`, {
      token: adminToken,
      body: { password: 'set-by-the-admin' },
    });
    assert.is(changed.status, 200);
    assertError(
      await app.request('POST', '/auth/refresh', { body: { refresh_token: pair.refresh_token } }),
      401,
      'INVALID_TOKEN',
    );
  }),
);

passwords.run();
