import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { digestSecret } from '../../src/application/auth/opaque-secret.ts';
import { SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { authFixture, rejectsWith } from '../support/auth-fixture.ts';

async function loggedIn() {
  const f = authFixture();
  const user = await f.user();
  const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  return { f, user, pair };
}

test('refresh rotates: a new pair in the same session, the old refresh token spent', async () => {
  const { f, pair } = await loggedIn();
  f.clock.advance(60_000);
  const next = await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  assert.is.not(next.refreshToken, pair.refreshToken);
  assert.is(next.expires, f.clock.now().getTime() + f.settings.accessTokenTtlMs);
  const before = await f.resolve.execute(null, { token: pair.accessToken });
  const after = await f.resolve.execute(null, { token: next.accessToken });
  assert.is(after.session, before.session);
});

test('refresh reuse inside the grace period answers the same pair (two tabs refreshing at once)', async () => {
  const { f, pair } = await loggedIn();
  const first = await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  f.clock.advance(f.settings.refreshReuseGraceMs);
  const second = await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  assert.equal(second, first);
  await f.refresh.execute(null, { refreshToken: first.refreshToken });
});

test('concurrent refreshes of one token all answer one pair', async () => {
  const { f, pair } = await loggedIn();
  const pairs = await Promise.all(
    Array.from({ length: 10 }, () => f.refresh.execute(null, { refreshToken: pair.refreshToken })),
  );
  for (const each of pairs) assert.equal(each, pairs[0]);
});

test('a refresh that loses the race answers the pair of the one that won', async () => {
  const { f, pair } = await loggedIn();
  // Both read the token while it is unspent; the second one's rotation then finds it spent.
  const [first, second] = await Promise.all([
    f.refresh.execute(null, { refreshToken: pair.refreshToken }),
    f.refresh.execute(null, { refreshToken: pair.refreshToken }),
  ]);
  assert.equal(second, first);
  const spent = await f.persistence.refreshTokens.findByDigest(digestSecret(pair.refreshToken));
  assert.ok(spent?.rotatedAt);
});

test('a successor is stored sealed: the spent row holds neither of its tokens', async () => {
  const { f, pair } = await loggedIn();
  const next = await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  const spent = await f.persistence.refreshTokens.findByDigest(digestSecret(pair.refreshToken));
  const stored = JSON.stringify(spent);
  assert.ok(spent?.sealedSuccessor);
  for (const secret of [pair.refreshToken, next.refreshToken, next.accessToken]) {
    assert.not.ok(stored.includes(secret));
  }
});

test('a replay within the grace is refused once the session is revoked or the user suspended', async () => {
  const { f, user, pair } = await loggedIn();
  await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  const stored = (await f.persistence.users.findById(user.id))!;
  stored.status = 'suspended';
  await f.persistence.users.save(stored);
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'USER_SUSPENDED');
  stored.status = 'active';
  await f.persistence.users.save(stored);
  await f.logout.execute(null, { refreshToken: pair.refreshToken });
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'INVALID_TOKEN');
});

test('refresh reuse after the grace period revokes the whole session family', async () => {
  const { f, pair } = await loggedIn();
  const successor = await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  f.clock.advance(f.settings.refreshReuseGraceMs + 1);
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'INVALID_TOKEN');
  await rejectsWith(f.refresh.execute(null, { refreshToken: successor.refreshToken }), 'INVALID_TOKEN');
});

test('refresh reuse revokes only that session, not the user’s other logins', async () => {
  const { f, pair } = await loggedIn();
  const other = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  f.clock.advance(f.settings.refreshReuseGraceMs + 1);
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'INVALID_TOKEN');
  await f.refresh.execute(null, { refreshToken: other.refreshToken });
});

test('an expired refresh token is TOKEN_EXPIRED', async () => {
  const { f, pair } = await loggedIn();
  f.clock.advance(f.settings.refreshTokenTtlMs);
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'TOKEN_EXPIRED');
});

test('each refresh grants a full refresh lifetime again (sliding session)', async () => {
  const { f, pair } = await loggedIn();
  f.clock.advance(f.settings.refreshTokenTtlMs - 1000);
  const next = await f.refresh.execute(null, { refreshToken: pair.refreshToken });
  f.clock.advance(f.settings.refreshTokenTtlMs - 1000);
  await f.refresh.execute(null, { refreshToken: next.refreshToken });
});

test('an unknown or garbage refresh token is INVALID_TOKEN', async () => {
  const { f } = await loggedIn();
  await rejectsWith(f.refresh.execute(null, { refreshToken: 'garbage' }), 'INVALID_TOKEN');
  await rejectsWith(f.refresh.execute(null, { refreshToken: '' }), 'INVALID_TOKEN');
});

test('after logout the refresh token no longer works', async () => {
  const { f, pair } = await loggedIn();
  await f.logout.execute(null, { refreshToken: pair.refreshToken });
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'INVALID_TOKEN');
  await f.logout.execute(null, { refreshToken: pair.refreshToken });
  await rejectsWith(f.logout.execute(null, { refreshToken: 'unknown' }), 'INVALID_TOKEN');
});

test('suspending or deleting a user, or changing the password, ends refreshing', async () => {
  for (const change of ['suspend', 'password', 'delete'] as const) {
    const { f, user, pair } = await loggedIn();
    if (change === 'suspend')
      await f.updateUser.execute(SYSTEM_ACCOUNTABILITY, { id: user.id, changes: { status: 'suspended' } });
    if (change === 'password')
      await f.updateUser.execute(SYSTEM_ACCOUNTABILITY, {
        id: user.id,
        changes: { password: 'new password!' },
      });
    if (change === 'delete') await f.deleteUser.execute(SYSTEM_ACCOUNTABILITY, { id: user.id });
    await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'INVALID_TOKEN');
  }
});

test('a user suspended without revocation (changed in the database) cannot refresh', async () => {
  const { f, user, pair } = await loggedIn();
  const stored = (await f.persistence.users.findById(user.id))!;
  stored.status = 'suspended';
  await f.persistence.users.save(stored);
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'USER_SUSPENDED');
});

test('changing one’s own password ends one’s sessions', async () => {
  const { f, user, pair } = await loggedIn();
  const caller = { user: user.id, role: user.role, admin: false, session: null };
  await f.updateCurrentUser.execute(caller, { password: 'another secret' });
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'INVALID_TOKEN');
  await f.login.execute({ email: 'ada@example.com', password: 'another secret' });
});

test.run();
