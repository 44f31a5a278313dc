import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp, type TokenPairBody } from '../support/test-app.ts';

const STATIC_TOKEN = 'lifecycle-static-token-0123456789abcdef';

const codeOf = (body: unknown) =>
  (body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code;

for (const [target, lifecycle] of suitePerBackend<{ app: TestApp }>(
  backends(),
  (backend) => `a user's sessions over HTTP on ${backend}`,
)) {
  lifecycle.before.each(async (context) => {
    context.app = await startTestApp({ persistence: borrowed(await target.fresh()) });
  });
  lifecycle.after.each(({ app }) => app.close());
  lifecycle.after(() => target.dispose());

  lifecycle('an admin sets a user up, the user logs in, refreshes, reuses and logs out', async ({ app }) => {
    const admin = await app.login(await app.seedAdmin());
    const role = await app.request('POST', '/roles', {
      token: admin.access_token,
      body: { name: 'Operators' },
    });
    assert.is(role.status, 200);
    const created = await app.request('POST', '/users', {
      token: admin.access_token,
      body: {
        email: 'Op@Example.com',
        password: 'operator-password',
        role: (role.body as { id: string }).id,
        token: STATIC_TOKEN,
      },
    });
    assert.is(created.status, 200);
    assert.is((created.body as { token: string }).token, '**********');
    const duplicate = await app.request('POST', '/users', {
      token: admin.access_token,
      body: { email: 'op@example.com', password: 'operator-password', role: null },
    });
    assert.is(duplicate.status, 409);

    const first = await app.login({ email: 'op@example.com', password: 'operator-password' });
    assert.is((await app.request('GET', '/users/me', { token: first.access_token })).status, 200);
    assert.is((await app.request('GET', '/users/me', { token: STATIC_TOKEN })).status, 200);

    const refresh = (token: string) =>
      app.request('POST', '/auth/refresh', { body: { refresh_token: token } });
    const second = await refresh(first.refresh_token);
    assert.is(second.status, 200);
    const replay = await refresh(first.refresh_token);
    assert.is(replay.status, 200, 'reuse within the grace period');
    assert.is(replay.text, second.text, 'the same pair, not a branch of the session');
    app.clock.advance(11_000);
    const theft = await refresh(first.refresh_token);
    assert.is(theft.status, 401);
    assert.is(codeOf(theft.body), 'INVALID_TOKEN');
    assert.is((await refresh((second.body as TokenPairBody).refresh_token)).status, 401, 'family revoked');

    const again = await app.login({ email: 'op@example.com', password: 'operator-password' });
    const logout = await app.request('POST', '/auth/logout', {
      body: { refresh_token: again.refresh_token },
    });
    assert.is(logout.status, 204);
    assert.is((await refresh(again.refresh_token)).status, 401);
  });

  lifecycle('suspension and deletion shut every door at once', async ({ app }) => {
    const admin = await app.login(await app.seedAdmin());
    const user = await app.createUser({ token: STATIC_TOKEN });
    const pair = await app.login(user);

    const suspend = await app.request('PATCH', `/users/${user.id}`, {
      token: admin.access_token,
      body: { status: 'suspended' },
    });
    assert.is(suspend.status, 200);
    for (const token of [STATIC_TOKEN, pair.access_token]) {
      const response = await app.request('GET', '/users/me', { token });
      assert.is(codeOf(response.body), 'USER_SUSPENDED');
    }
    const refresh = await app.request('POST', '/auth/refresh', {
      body: { refresh_token: pair.refresh_token },
    });
    assert.is(refresh.status, 401);
    const login = await app.request('POST', '/auth/login', {
      body: { email: user.email, password: user.password },
    });
    assert.is(codeOf(login.body), 'USER_SUSPENDED');

    assert.is((await app.request('DELETE', `/users/${user.id}`, { token: admin.access_token })).status, 204);
    assert.is((await app.request('GET', `/users/${user.id}`, { token: admin.access_token })).status, 404);
    assert.is(codeOf((await app.request('GET', '/users/me', { token: STATIC_TOKEN })).body), 'INVALID_TOKEN');
  });

  lifecycle('deleting a role leaves its users without a role', async ({ app }) => {
    const admin = await app.login(await app.seedAdmin());
    const role = await app.createRole({ name: 'Temporary' });
    const user = await app.createUser({ role: role.id });
    assert.is((await app.request('DELETE', `/roles/${role.id}`, { token: admin.access_token })).status, 204);
    const shown = await app.request('GET', `/users/${user.id}`, { token: admin.access_token });
    assert.is((shown.body as { role: string | null }).role, null);
  });

  lifecycle('the last admin cannot remove themselves', async ({ app }) => {
    const seeded = await app.seedAdmin();
    const admin = await app.login(seeded);
    const response = await app.request('DELETE', `/users/${seeded.id}`, { token: admin.access_token });
    assert.is(response.status, 400);
    assert.is(codeOf(response.body), 'INVALID_PAYLOAD');
    const demote = await app.request('PATCH', `/roles/${seeded.role}`, {
      token: admin.access_token,
      body: { admin_access: false },
    });
    assert.is(demote.status, 400);
    assert.is((await app.request('GET', '/users/me', { token: admin.access_token })).status, 200);
  });

  lifecycle.run();
}
