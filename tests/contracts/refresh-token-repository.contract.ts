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
    const spent = aRefreshToken({
      userId: user.id,
      rotatedAt: at(60_000),
      revokedAt: at(120_001),
      sealedSuccessor: 'sealed pair',
    });
    await refreshTokens.add(fresh);
    await refreshTokens.add(spent);
    const found = await refreshTokens.findByDigest(fresh.tokenDigest);
    assert.instance(found, RefreshToken);
    assert.instance(found?.expiresAt, Date);
    assert.equal(found, fresh);
    assert.equal(await refreshTokens.findByDigest(spent.tokenDigest), spent);
  });

  test("the first token of a session is added while its user is active with the login's password hash", async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const first = aRefreshToken({ userId: user.id });
    assert.is(await refreshTokens.addFirstOfSession(first, user.passwordHash), true);
    assert.equal(await refreshTokens.findByDigest(first.tokenDigest), first);
  });

  test('the first token of a session is not added once its user is suspended, has another password or is gone', async ({
    persistence: { refreshTokens, users },
    user,
  }) => {
    const another = aRefreshToken({ userId: user.id });
    assert.is(await refreshTokens.addFirstOfSession(another, `${user.passwordHash}x`), false);
    await users.update(user.id, { status: 'suspended' });
    const whileSuspended = aRefreshToken({ userId: user.id });
    assert.is(await refreshTokens.addFirstOfSession(whileSuspended, user.passwordHash), false);
    const ofNobody = aRefreshToken({ userId: randomUUID() });
    assert.is(await refreshTokens.addFirstOfSession(ofNobody, user.passwordHash), false);
    for (const token of [another, whileSuspended, ofNobody]) {
      assert.is(await refreshTokens.findByDigest(token.tokenDigest), null);
    }
  });

  test('an unknown digest finds nothing', async ({ persistence: { refreshTokens }, user }) => {
    await refreshTokens.add(aRefreshToken({ userId: user.id }));
    assert.is(await refreshTokens.findByDigest(digest('ff')), null);
  });

  test('rotate spends the token with its sealed successor and adds the successor, once', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const spent = aRefreshToken({ userId: user.id });
    await refreshTokens.add(spent);
    const successor = aRefreshToken({ userId: user.id, sessionId: spent.sessionId, createdAt: at(1000) });
    assert.is(await refreshTokens.rotate(spent.id, successor, 'sealed pair', at(1000)), true);
    assert.equal(
      await refreshTokens.findByDigest(spent.tokenDigest),
      new RefreshToken({ ...spent, rotatedAt: at(1000), sealedSuccessor: 'sealed pair' }),
    );
    assert.equal(await refreshTokens.findByDigest(successor.tokenDigest), successor);

    const second = aRefreshToken({ userId: user.id, sessionId: spent.sessionId });
    assert.is(await refreshTokens.rotate(spent.id, second, 'another pair', at(2000)), false);
    assert.is(await refreshTokens.findByDigest(second.tokenDigest), null);
    const after = await refreshTokens.findByDigest(spent.tokenDigest);
    assert.equal([after?.rotatedAt, after?.sealedSuccessor], [at(1000), 'sealed pair']);
  });

  test('concurrent rotations of one token let exactly one win and add exactly one successor', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const spent = aRefreshToken({ userId: user.id });
    await refreshTokens.add(spent);
    const successors = Array.from({ length: 10 }, () =>
      aRefreshToken({ userId: user.id, sessionId: spent.sessionId }),
    );
    const outcomes = await Promise.all(
      successors.map((successor, i) => refreshTokens.rotate(spent.id, successor, `pair ${i}`, at(i))),
    );
    assert.is(outcomes.filter(Boolean).length, 1);
    const winner = outcomes.indexOf(true);
    const stored = await Promise.all(
      successors.map((successor) => refreshTokens.findByDigest(successor.tokenDigest)),
    );
    assert.equal(
      stored.map((found) => found !== null),
      outcomes,
      'only the winner’s successor exists',
    );
    assert.is((await refreshTokens.findByDigest(spent.tokenDigest))?.sealedSuccessor, `pair ${winner}`);
  });

  test('a revoked token is not rotated', async ({ persistence: { refreshTokens }, user }) => {
    const revoked = aRefreshToken({ userId: user.id, revokedAt: at(0) });
    await refreshTokens.add(revoked);
    const successor = aRefreshToken({ userId: user.id, sessionId: revoked.sessionId });
    assert.is(await refreshTokens.rotate(revoked.id, successor, 'sealed pair', at(1)), false);
    assert.is(await refreshTokens.findByDigest(successor.tokenDigest), null);
    assert.equal(await refreshTokens.findByDigest(revoked.tokenDigest), revoked);
  });

  test('rotating an unknown token is false and adds nothing', async ({
    persistence: { refreshTokens },
    user,
  }) => {
    const successor = aRefreshToken({ userId: user.id });
    assert.is(await refreshTokens.rotate(randomUUID(), successor, 'sealed pair', at(0)), false);
    assert.is(await refreshTokens.rotate('not-a-uuid', successor, 'sealed pair', at(0)), false);
    assert.is(await refreshTokens.findByDigest(successor.tokenDigest), null);
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
