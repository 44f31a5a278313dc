import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PUBLIC_ACCOUNTABILITY, SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { authFixture, rejectsWith } from '../support/auth-fixture.ts';

const STATIC_TOKEN = 'a-static-token-of-at-least-32-characters';

test('no token is the public caller', async () => {
  const f = authFixture();
  assert.equal(await f.resolve.execute(null, { token: null }), PUBLIC_ACCOUNTABILITY);
});

test('an access token resolves to its user, role and session', async () => {
  const f = authFixture();
  const user = await f.user();
  const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  const caller = await f.resolve.execute(null, { token: pair.accessToken });
  assert.is(caller.user, user.id);
  assert.is(caller.role, user.role);
  assert.is(caller.admin, false);
  assert.ok(caller.session);
});

test('an access token is accepted until its expiry and TOKEN_EXPIRED from then on', async () => {
  const f = authFixture();
  await f.user();
  const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  f.clock.set(new Date(pair.expires - 1));
  await f.resolve.execute(null, { token: pair.accessToken });
  f.clock.set(new Date(pair.expires));
  await rejectsWith(f.resolve.execute(null, { token: pair.accessToken }), 'TOKEN_EXPIRED');
});

test('rights come from the current role, not from the token', async () => {
  const f = authFixture();
  const user = await f.user();
  const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  const admins = await f.createRole.execute(SYSTEM_ACCOUNTABILITY, { name: 'Admins', admin_access: true });
  await f.updateUser.execute(SYSTEM_ACCOUNTABILITY, { id: user.id, changes: { role: admins.id } });
  const caller = await f.resolve.execute(null, { token: pair.accessToken });
  assert.is(caller.role, admins.id);
  assert.is(caller.admin, true);
});

test('a static token resolves to its user, with no session', async () => {
  const f = authFixture();
  const user = await f.user({ token: STATIC_TOKEN });
  const caller = await f.resolve.execute(null, { token: STATIC_TOKEN });
  assert.is(caller.user, user.id);
  assert.is(caller.session, null);
});

test('an unknown static token or a forged access token is INVALID_TOKEN', async () => {
  const f = authFixture();
  await f.user({ token: STATIC_TOKEN });
  await rejectsWith(f.resolve.execute(null, { token: `${STATIC_TOKEN}x` }), 'INVALID_TOKEN');
  await rejectsWith(f.resolve.execute(null, { token: 'mem.forged' }), 'INVALID_TOKEN');
});

test('a suspended user’s static and access tokens stop working at once, as USER_SUSPENDED', async () => {
  // Suspending also ends the sessions: checked on each request, the access token's ended session must not
  // hide the reason the client can tell its user.
  for (const checkSessionOnEachRequest of [false, true]) {
    const f = authFixture({ checkSessionOnEachRequest });
    const user = await f.user({ token: STATIC_TOKEN });
    const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
    await f.updateUser.execute(SYSTEM_ACCOUNTABILITY, { id: user.id, changes: { status: 'suspended' } });
    await rejectsWith(f.resolve.execute(null, { token: STATIC_TOKEN }), 'USER_SUSPENDED');
    await rejectsWith(f.resolve.execute(null, { token: pair.accessToken }), 'USER_SUSPENDED');
  }
});

test('a deleted user’s tokens are INVALID_TOKEN', async () => {
  const f = authFixture();
  const user = await f.user({ token: STATIC_TOKEN });
  const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  await f.deleteUser.execute(SYSTEM_ACCOUNTABILITY, { id: user.id });
  await rejectsWith(f.resolve.execute(null, { token: STATIC_TOKEN }), 'INVALID_TOKEN');
  await rejectsWith(f.resolve.execute(null, { token: pair.accessToken }), 'INVALID_TOKEN');
});

test('after logout an access token lives on until exp, unless sessions are checked on each request', async () => {
  for (const checkSessionOnEachRequest of [false, true]) {
    const f = authFixture({ checkSessionOnEachRequest });
    await f.user();
    const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
    await f.logout.execute(null, { refreshToken: pair.refreshToken });
    const resolving = f.resolve.execute(null, { token: pair.accessToken });
    if (checkSessionOnEachRequest) await rejectsWith(resolving, 'INVALID_TOKEN');
    else await resolving;
  }
});

test.run();
