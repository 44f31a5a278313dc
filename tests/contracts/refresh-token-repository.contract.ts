import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { RefreshToken } from '../../src/domain/refresh-token.ts';
import type { User } from '../../src/domain/user.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { aRefreshToken, at, aUser, digest, HOUR } from './fixtures.ts';

type Context = { persistence: Persistence; user: User };

export function refreshTokenRepositoryContract(target: PersistenceTarget) {
  const test = skippableSuite<Context>(`RefreshTokenRepository on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    // Tokens belong to a user: databases enforce it.
    context.user = aUser();
    await context.persistence.users.save(context.user);
  });
  test.after(() => target.dispose());

  test('an added token comes back whole, with Dates', async ({ persistence: { refreshTokens }, user }) => {
    const fresh = aRefreshToken({ userId: user.id });
    const spent = aRefreshToken({ userId: user.id, rotatedAt: at(60_000), revokedAt: at(120_001) });
    await refreshTokens.add(fresh);
    await refreshTokens.add(spent);
    const found = await refreshTokens.findByDigest(fresh.tokenDigest);
    assert.instance(found, RefreshToken);
    assert.instance(found?.expiresAt, Date);
    assert.equal(found, fresh);
    assert.equal(await refreshTokens.findByDigest(spent.tokenDigest), spent);
  });

  test('an unknown digest finds nothing', async ({ persistence: { refreshTokens }, user }) => {
    await refreshTokens.add(aRefreshToken({ userId: user.id }));
    assert.is(await refreshTokens.findByDigest(digest('ff')), null);
  });

  test('markRotated succeeds once, for the first caller only', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const token = aRefreshToken({ userId: user.id });
    await refreshTokens.add(token);
    assert.is(await refreshTokens.markRotated(token.id, at(1000)), true);
    assert.is(await refreshTokens.markRotated(token.id, at(2000)), false);
    assert.equal((await refreshTokens.findByDigest(token.tokenDigest))?.rotatedAt, at(1000));
  });

  test('concurrent markRotated calls let exactly one win', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const token = aRefreshToken({ userId: user.id });
    await refreshTokens.add(token);
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => refreshTokens.markRotated(token.id, at(i))),
    );
    assert.is(outcomes.filter(Boolean).length, 1);
  });

  test('markRotated of an unknown token is false', async ({ persistence: { refreshTokens } }) => {
    assert.is(await refreshTokens.markRotated(randomUUID(), at(0)), false);
    assert.is(await refreshTokens.markRotated('not-a-uuid', at(0)), false);
  });

  test('revokeSession revokes that session only, keeping the first revocation time', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const sessionId = randomUUID();
    const first = aRefreshToken({ userId: user.id, sessionId, rotatedAt: at(10) });
    const second = aRefreshToken({ userId: user.id, sessionId });
    const earlier = aRefreshToken({ userId: user.id, sessionId, revokedAt: at(5) });
    const otherSession = aRefreshToken({ userId: user.id });
    for (const token of [first, second, earlier, otherSession]) await refreshTokens.add(token);
    await refreshTokens.revokeSession(sessionId, at(100));
    await refreshTokens.revokeSession(sessionId, at(200));
    assert.equal((await refreshTokens.findByDigest(first.tokenDigest))?.revokedAt, at(100));
    assert.equal((await refreshTokens.findByDigest(second.tokenDigest))?.revokedAt, at(100));
    assert.equal((await refreshTokens.findByDigest(earlier.tokenDigest))?.revokedAt, at(5));
    assert.is((await refreshTokens.findByDigest(otherSession.tokenDigest))?.revokedAt, null);
    assert.is(await refreshTokens.isSessionActive(sessionId, at(0)), false);
    assert.is(await refreshTokens.isSessionActive(otherSession.sessionId, at(0)), true);
  });

  test('revokeUser revokes every session of that user only', async ({
    persistence: { refreshTokens, users },
    user,
  }) => {
    const other = aUser();
    await users.save(other);
    const mine = [aRefreshToken({ userId: user.id }), aRefreshToken({ userId: user.id })];
    const theirs = aRefreshToken({ userId: other.id });
    for (const token of [...mine, theirs]) await refreshTokens.add(token);
    await refreshTokens.revokeUser(user.id, at(100));
    for (const token of mine) {
      assert.equal((await refreshTokens.findByDigest(token.tokenDigest))?.revokedAt, at(100));
      assert.is(await refreshTokens.isSessionActive(token.sessionId, at(0)), false);
    }
    assert.is(await refreshTokens.isSessionActive(theirs.sessionId, at(0)), true);
    await refreshTokens.revokeUser(user.id, at(200));
    assert.equal((await refreshTokens.findByDigest(mine[0].tokenDigest))?.revokedAt, at(100));
  });

  test('a session is active while one of its tokens is neither revoked nor expired', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const sessionId = randomUUID();
    await refreshTokens.add(aRefreshToken({ userId: user.id, sessionId, revokedAt: at(0) }));
    await refreshTokens.add(
      aRefreshToken({ userId: user.id, sessionId, rotatedAt: at(0), expiresAt: at(HOUR) }),
    );
    assert.is(await refreshTokens.isSessionActive(sessionId, at(HOUR - 1)), true);
    assert.is(await refreshTokens.isSessionActive(sessionId, at(HOUR)), false);
    assert.is(await refreshTokens.isSessionActive(sessionId, at(2 * HOUR)), false);
  });

  test('an unknown session is not active', async ({ persistence: { refreshTokens } }) => {
    assert.is(await refreshTokens.isSessionActive(randomUUID(), at(0)), false);
    assert.is(await refreshTokens.isSessionActive('not-a-uuid', at(0)), false);
  });

  test('deleteExpired forgets tokens that expired before the cut-off and counts them', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const long = aRefreshToken({ userId: user.id, expiresAt: at(3 * HOUR) });
    const boundary = aRefreshToken({ userId: user.id, expiresAt: at(2 * HOUR) });
    const gone = [
      aRefreshToken({ userId: user.id, expiresAt: at(HOUR) }),
      aRefreshToken({ userId: user.id, expiresAt: at(2 * HOUR - 1), revokedAt: at(0) }),
    ];
    for (const token of [long, boundary, ...gone]) await refreshTokens.add(token);
    assert.is(await refreshTokens.deleteExpired(at(2 * HOUR)), 2);
    for (const token of gone) assert.is(await refreshTokens.findByDigest(token.tokenDigest), null);
    assert.equal(await refreshTokens.findByDigest(long.tokenDigest), long);
    assert.equal(await refreshTokens.findByDigest(boundary.tokenDigest), boundary);
    assert.is(await refreshTokens.deleteExpired(at(2 * HOUR)), 0);
  });

  return test;
}
