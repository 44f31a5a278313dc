import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { UpdateUserCommand } from '../../src/application/users/update-user.ts';
import { SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { authFixture, DEFAULT_LOGIN_BUDGETS, rejectsWith } from '../support/auth-fixture.ts';

test('login returns a pair whose expiry is the access-token lifetime from now, in epoch ms', async () => {
  const f = authFixture();
  await f.user();
  const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  assert.is(pair.expires, f.clock.now().getTime() + f.settings.accessTokenTtlMs);
  assert.ok(pair.accessToken.length > 0);
  assert.ok(pair.refreshToken.length >= 43, 'refresh token carries at least 256 bits');
});

test('login matches the e-mail case-insensitively and ignores surrounding blanks', async () => {
  const f = authFixture();
  await f.user();
  await f.login.execute({ email: '  ADA@Example.COM ', password: 'correct horse' });
});

test('a wrong password and an unknown e-mail get the same error', async () => {
  const f = authFixture();
  await f.user();
  await rejectsWith(f.login.execute({ email: 'ada@example.com', password: 'wrong' }), 'INVALID_CREDENTIALS');
  await rejectsWith(f.login.execute({ email: 'bob@example.com', password: 'wrong' }), 'INVALID_CREDENTIALS');
  await rejectsWith(f.login.execute({ email: 'not an email', password: 'x' }), 'INVALID_CREDENTIALS');
});

test('an unknown e-mail still costs one password verification, against no hash', async () => {
  const f = authFixture();
  await rejectsWith(
    f.login.execute({ email: 'bob@example.com', password: 'secret123' }),
    'INVALID_CREDENTIALS',
  );
  assert.equal(f.hasher.verified, [null]);
});

test('a suspended user with the right password is told so; with a wrong one is not', async () => {
  const f = authFixture();
  await f.user({ status: 'suspended' });
  await rejectsWith(
    f.login.execute({ email: 'ada@example.com', password: 'correct horse' }),
    'USER_SUSPENDED',
  );
  await rejectsWith(f.login.execute({ email: 'ada@example.com', password: 'wrong' }), 'INVALID_CREDENTIALS');
});

test('every login starts its own session', async () => {
  const f = authFixture();
  const user = await f.user();
  const a = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  const b = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  const callerA = await f.resolve.execute(null, { token: a.accessToken });
  const callerB = await f.resolve.execute(null, { token: b.accessToken });
  assert.is(callerA.user, user.id);
  assert.is.not(callerA.session, callerB.session);
});

/**
 * A login checking the password (tens of milliseconds of argon2) while an admin changes that user: the
 * change ends every session the user has, so the one this login is about to start must not escape it.
 */
async function loginWhileAnAdminChanges(changes: UpdateUserCommand, expectedCode: string) {
  const f = authFixture();
  const user = await f.user();
  const verify = f.hasher.verify.bind(f.hasher);
  f.hasher.verify = async (hash, password) => {
    f.hasher.verify = verify;
    const matches = await verify(hash, password);
    await f.updateUser.execute(SYSTEM_ACCOUNTABILITY, { id: user.id, changes });
    return matches;
  };
  await rejectsWith(f.login.execute({ email: 'ada@example.com', password: 'correct horse' }), expectedCode);
}

test('a login racing a new password starts no session: the old password is wrong by then', async () => {
  await loginWhileAnAdminChanges({ password: 'a new password' }, 'INVALID_CREDENTIALS');
});

test('a login racing a suspension starts no session, which a reactivation would bring back', async () => {
  await loginWhileAnAdminChanges({ status: 'suspended' }, 'USER_SUSPENDED');
});

test('each login is measured as a success, a failure (suspended included) or throttled', async () => {
  const f = authFixture({}, { ...DEFAULT_LOGIN_BUDGETS, emailAndAddress: { failures: 1, window: 60_000 } });
  await f.user();
  await f.user({ email: 'sam@example.com', status: 'suspended' });
  await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  await rejectsWith(
    f.login.execute({ email: 'sam@example.com', password: 'correct horse' }),
    'USER_SUSPENDED',
  );
  await rejectsWith(f.login.execute({ email: 'ada@example.com', password: 'wrong' }), 'INVALID_CREDENTIALS');
  await rejectsWith(f.login.execute({ email: 'ada@example.com', password: 'wrong' }), 'TOO_MANY_REQUESTS');
  assert.equal(f.metrics.logins, ['success', 'failure', 'failure', 'throttled']);
});

test.run();
