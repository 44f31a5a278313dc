import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_ROLE_NAME, DEFAULT_ADMIN_EMAIL } from '../../src/application/setup/bootstrap.ts';
import { authFixture } from '../support/auth-fixture.ts';

test('bootstrap creates an admin role and user with the configured credentials, once', async () => {
  const f = authFixture();
  const first = await f.bootstrap.execute(null, {
    adminEmail: 'Root@Example.com',
    adminPassword: 'configured!',
  });
  assert.equal(first, { created: true, email: 'root@example.com', generatedPassword: null });
  const caller = await f.resolve.execute(null, {
    token: (await f.login.execute({ email: 'root@example.com', password: 'configured!' })).accessToken,
  });
  assert.is(caller.admin, true);
  assert.equal(await f.bootstrap.execute(null, {}), { created: false });
  assert.is((await f.persistence.users.list()).length, 1);
});

test('bootstrap without a password generates one and reports it', async () => {
  const f = authFixture();
  const result = await f.bootstrap.execute(null, {});
  if (!result.created || !result.generatedPassword) throw new Error('expected a generated password');
  assert.is(result.email, DEFAULT_ADMIN_EMAIL);
  assert.ok(result.generatedPassword.length >= 16);
  await f.login.execute({ email: DEFAULT_ADMIN_EMAIL, password: result.generatedPassword });
});

test('bootstrap does not trust a same-named role without admin access', async () => {
  const f = authFixture();
  await f.createRole.execute(
    { user: null, role: null, admin: true, session: null },
    { name: ADMIN_ROLE_NAME },
  );
  await f.bootstrap.execute(null, { adminPassword: 'configured!' });
  const admins = (await f.persistence.roles.list()).filter((role) => role.adminAccess);
  assert.is(admins.length, 1);
});

test.run();
