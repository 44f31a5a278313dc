import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type SeededUser, startTestApp, type TestApp, type TokenPairBody } from '../support/test-app.ts';
import { expectError } from './attack-kit.ts';

/**
 * Stolen or stale credentials after the account or the session changed (docs/api.md §3, §3a). Each test gets a
 * fresh app, since most of them move the clock.
 */
type Context = { app: TestApp; admin: string; user: SeededUser };

const test = suite<Context>('sessions that must be dead (docs/api.md §3, §3a)');

const STATIC_TOKEN = 'static-token-of-a-server-0123456789abcdef';

test.before.each(async (context) => {
  context.app = await startTestApp();
  context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  context.user = await context.app.createUser({ token: STATIC_TOKEN });
});
test.after.each(({ app }) => app.close());

const refresh = (app: TestApp, refreshToken: string) =>
  app.request('POST', '/auth/refresh', { body: { refresh_token: refreshToken } });
const me = (app: TestApp, token: string) => app.request('GET', '/users/me', { token });

test('token for a deleted user: access, static and refresh tokens → 401 INVALID_TOKEN', async ({
  app,
  admin,
  user,
}) => {
  const pair = await app.login(user);
  assert.is((await me(app, pair.access_token)).status, 200);
  assert.is((await app.request('DELETE', `/users/${user.id}`, { token: admin })).status, 204);

  expectError(await me(app, pair.access_token), 401, 'INVALID_TOKEN', 'access token');
  expectError(await me(app, STATIC_TOKEN), 401, 'INVALID_TOKEN', 'static token');
  expectError(await refresh(app, pair.refresh_token), 401, 'INVALID_TOKEN', 'refresh token');
  // A new user with the same e-mail is another person: the old tokens do not become theirs.
  await app.createUser({ email: user.email });
  expectError(await me(app, pair.access_token), 401, 'INVALID_TOKEN', 'access token after re-creation');
  expectError(await refresh(app, pair.refresh_token), 401, 'INVALID_TOKEN', 'refresh after re-creation');
});

test('reused refresh token after the grace period → 401 INVALID_TOKEN, and the whole session family dies', async ({
  app,
  user,
}) => {
  const first = await app.login(user);
  const second = await refresh(app, first.refresh_token);
  assert.is(second.status, 200);
  const rotated = second.body as TokenPairBody;

  app.clock.advance(10_001); // auth.refreshReuseGrace is 10 s
  expectError(await refresh(app, first.refresh_token), 401, 'INVALID_TOKEN', 'the spent token');
  // Theft is assumed: the legitimate holder's current token is revoked as well.
  expectError(await refresh(app, rotated.refresh_token), 401, 'INVALID_TOKEN', 'the family');
  // Other sessions of the same user are not the stolen one.
  const other = await app.login(user);
  assert.is((await refresh(app, other.refresh_token)).status, 200);
});

test('reused refresh token within the grace period → 200 (two tabs), still spent afterwards', async ({
  app,
  user,
}) => {
  const first = await app.login(user);
  assert.is((await refresh(app, first.refresh_token)).status, 200);
  app.clock.advance(5_000);
  assert.is((await refresh(app, first.refresh_token)).status, 200, 'second tab');
  app.clock.advance(6_000);
  expectError(await refresh(app, first.refresh_token), 401, 'INVALID_TOKEN', 'after the grace');
});

test('refresh after logout → 401 INVALID_TOKEN, also within the reuse grace period', async ({
  app,
  user,
}) => {
  const pair = await app.login(user);
  const logout = await app.request('POST', '/auth/logout', { body: { refresh_token: pair.refresh_token } });
  assert.is(logout.status, 204);
  expectError(await refresh(app, pair.refresh_token), 401, 'INVALID_TOKEN');

  // A refresh token rotated just before logout cannot be replayed within the grace either.
  const next = await app.login(user);
  const rotated = (await refresh(app, next.refresh_token)).body as TokenPairBody;
  await app.request('POST', '/auth/logout', { body: { refresh_token: rotated.refresh_token } });
  expectError(await refresh(app, next.refresh_token), 401, 'INVALID_TOKEN', 'the pre-rotation token');
});

test('refresh after a password change by an admin → 401 INVALID_TOKEN', async ({ app, admin, user }) => {
  const pair = await app.login(user);
  const changed = await app.request('PATCH', `/users/${user.id}`, {
    token: admin,
    body: { password: 'a-new-password-456' },
  });
  assert.is(changed.status, 200, changed.text);
  expectError(await refresh(app, pair.refresh_token), 401, 'INVALID_TOKEN');
  assert.is(
    (await app.login({ email: user.email, password: 'a-new-password-456' })).access_token.length > 0,
    true,
  );
});

test('refresh after the user changes their own password → 401 INVALID_TOKEN for every session', async ({
  app,
  user,
}) => {
  const stolen = await app.login(user);
  const current = await app.login(user);
  const changed = await app.request('PATCH', '/users/me', {
    token: current.access_token,
    body: { password: 'a-new-password-456' },
  });
  assert.is(changed.status, 200, changed.text);
  expectError(await refresh(app, stolen.refresh_token), 401, 'INVALID_TOKEN', 'the stolen session');
  expectError(await refresh(app, current.refresh_token), 401, 'INVALID_TOKEN', 'the session that changed it');
});

test('static token of a suspended user → 401 USER_SUSPENDED; back to work once reactivated', async ({
  app,
  admin,
  user,
}) => {
  assert.is((await me(app, STATIC_TOKEN)).status, 200);
  const suspend = await app.request('PATCH', `/users/${user.id}`, {
    token: admin,
    body: { status: 'suspended' },
  });
  assert.is(suspend.status, 200);
  expectError(await me(app, STATIC_TOKEN), 401, 'USER_SUSPENDED', 'by header');
  expectError(
    await app.request('GET', `/users/me?access_token=${STATIC_TOKEN}`),
    401,
    'USER_SUSPENDED',
    'by query',
  );
  expectError(
    await app.request('GET', '/items/anything', { token: STATIC_TOKEN }),
    401,
    'USER_SUSPENDED',
    'items',
  );

  await app.request('PATCH', `/users/${user.id}`, { token: admin, body: { status: 'active' } });
  assert.is((await me(app, STATIC_TOKEN)).status, 200);
});

test('access and refresh tokens of a suspended user → 401 at once, not after the access token’s exp', async ({
  app,
  admin,
  user,
}) => {
  const pair = await app.login(user);
  await app.request('PATCH', `/users/${user.id}`, { token: admin, body: { status: 'suspended' } });
  expectError(await me(app, pair.access_token), 401, 'USER_SUSPENDED', 'access token');
  const refused = await refresh(app, pair.refresh_token);
  assert.is(refused.status, 401, refused.text);
  // Reactivation does not bring the revoked session back.
  await app.request('PATCH', `/users/${user.id}`, { token: admin, body: { status: 'active' } });
  expectError(await refresh(app, pair.refresh_token), 401, 'INVALID_TOKEN', 'after reactivation');
});

test('a removed static token → 401 INVALID_TOKEN', async ({ app, admin, user }) => {
  await app.request('PATCH', `/users/${user.id}`, { token: admin, body: { token: null } });
  expectError(await me(app, STATIC_TOKEN), 401, 'INVALID_TOKEN');
});

test('expired refresh token (past auth.refreshTokenTTL) → 401 TOKEN_EXPIRED', async ({ app, user }) => {
  const pair = await app.login(user);
  app.clock.advance(7 * 24 * 3600 * 1000);
  expectError(await refresh(app, pair.refresh_token), 401, 'TOKEN_EXPIRED');
});

test('token type confusion: a refresh token as bearer, an access token as refresh token → 401 INVALID_TOKEN', async ({
  app,
  user,
}) => {
  const pair = await app.login(user);
  expectError(await me(app, pair.refresh_token), 401, 'INVALID_TOKEN', 'refresh token as bearer');
  expectError(await refresh(app, pair.access_token), 401, 'INVALID_TOKEN', 'access token as refresh token');
  expectError(await refresh(app, STATIC_TOKEN), 401, 'INVALID_TOKEN', 'static token as refresh token');
  // The real refresh token is still good: the failed attempts spent nothing.
  assert.is((await refresh(app, pair.refresh_token)).status, 200);
});

test('with checkSessionOnEachRequest, an access token dies with its session at logout → 401 INVALID_TOKEN', async () => {
  const app = await startTestApp({ env: { CHECK_SESSION_ON_EACH_REQUEST: 'true' } });
  try {
    const user = await app.createUser();
    const pair = await app.login(user);
    assert.is((await me(app, pair.access_token)).status, 200);
    await app.request('POST', '/auth/logout', { body: { refresh_token: pair.refresh_token } });
    expectError(await me(app, pair.access_token), 401, 'INVALID_TOKEN');
  } finally {
    await app.close();
  }
});

test.run();
