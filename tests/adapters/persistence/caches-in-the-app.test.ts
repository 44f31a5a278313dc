import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { UserRepository } from '../../../src/application/ports/user-repository.ts';
import type { UserView } from '../../../src/application/users/user-view.ts';
import { TYPES } from '../../../src/container.ts';
import { backends, borrowed } from '../../support/databases.ts';
import { suitePerBackend } from '../../support/suite-per-backend.ts';
import { startTestApp, type TestApp, withTestApp } from '../../support/test-app.ts';

const STATIC_TOKEN = 'cached-static-token-0123456789abcdef';
const OTHER_TOKEN = 'cached-other-token-0123456789abcdef';

const codeOf = (body: unknown) =>
  (body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code;

const containers = suite('the caches belong to one container');

containers('two apps have caches of their own, so one never serves what the other read', async () => {
  await withTestApp(async (first) => {
    await withTestApp(async (second) => {
      const users = (app: TestApp) => app.container.get<UserRepository>(TYPES.UserRepository);
      assert.is.not(users(first), users(second));
      const admin = await first.seedAdmin();
      assert.ok(await users(first).findById(admin.id));
      assert.is(await users(second).findById(admin.id), null);
    });
  });
});

containers.run();

for (const [target, api] of suitePerBackend<{ app: TestApp }>(
  backends(),
  (backend) => `changes through the API apply at once, caches warm, on ${backend}`,
)) {
  api.before.each(async (context) => {
    context.app = await startTestApp({
      persistence: borrowed(await target.fresh()),
      env: { CHECK_SESSION_ON_EACH_REQUEST: 'true' },
    });
  });
  api.after.each(({ app }) => app.close());
  api.after(() => target.dispose());

  api('after logout the access token is refused on the next request', async ({ app }) => {
    await app.seedAdmin();
    const user = await app.createUser();
    const pair = await app.login(user);
    assert.is((await app.request('GET', '/users/me', { token: pair.access_token })).status, 200);
    const logout = await app.request('POST', '/auth/logout', { body: { refresh_token: pair.refresh_token } });
    assert.is(logout.status, 204);
    const after = await app.request('GET', '/users/me', { token: pair.access_token });
    assert.is(after.status, 401);
    assert.is(codeOf(after.body), 'INVALID_TOKEN');
  });

  api('a new static token replaces the old one at once', async ({ app }) => {
    const admin = await app.login(await app.seedAdmin());
    const user = await app.createUser({ token: STATIC_TOKEN });
    assert.is((await app.request('GET', '/users/me', { token: STATIC_TOKEN })).status, 200);
    assert.is((await app.request('GET', '/users/me', { token: OTHER_TOKEN })).status, 401);
    const change = await app.request('PATCH', `/users/${user.id}`, {
      token: admin.access_token,
      body: { token: OTHER_TOKEN },
    });
    assert.is(change.status, 200);
    assert.is((await app.request('GET', '/users/me', { token: STATIC_TOKEN })).status, 401);
    assert.is((await app.request('GET', '/users/me', { token: OTHER_TOKEN })).status, 200);
  });

  api("a role's admin access and its deletion apply to its holders at once", async ({ app }) => {
    const admin = await app.login(await app.seedAdmin());
    const role = await app.createRole({ name: 'Operators' });
    const user = await app.createUser({ role: role.id, token: STATIC_TOKEN });
    assert.is((await app.request('GET', '/roles', { token: STATIC_TOKEN })).status, 403);
    const promote = await app.request('PATCH', `/roles/${role.id}`, {
      token: admin.access_token,
      body: { admin_access: true },
    });
    assert.is(promote.status, 200);
    assert.is((await app.request('GET', '/roles', { token: STATIC_TOKEN })).status, 200);
    assert.is(
      ((await app.request('GET', '/users/me', { token: STATIC_TOKEN })).body as UserView).role,
      role.id,
    );

    assert.is((await app.request('DELETE', `/roles/${role.id}`, { token: admin.access_token })).status, 204);
    const me = await app.request('GET', '/users/me', { token: STATIC_TOKEN });
    assert.is((me.body as UserView).id, user.id);
    assert.is((me.body as UserView).role, null);
    assert.is((await app.request('GET', '/roles', { token: STATIC_TOKEN })).status, 403);
  });

  api.run();
}
