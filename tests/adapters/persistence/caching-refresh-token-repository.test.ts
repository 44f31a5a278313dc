import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CachingRefreshTokenRepository } from '../../../src/adapters/persistence/caching-refresh-token-repository.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { aRefreshToken, at, aUser, HOUR } from '../../contracts/fixtures.ts';
import { counting } from './counting.ts';

const MINUTE = 60_000;

async function caches() {
  const persistence = createInMemoryPersistence();
  const user = aUser();
  await persistence.users.save(user);
  const store = counting(persistence.refreshTokens);
  const sessions = new CachingRefreshTokenRepository(store.repository, { horizonMs: MINUTE });
  return { persistence, sessions, user, calls: store.calls };
}

test('an active session is vouched for from memory up to the horizon, then asked again', async () => {
  const { sessions, user, calls } = await caches();
  const token = aRefreshToken({ userId: user.id, expiresAt: at(HOUR) });
  await sessions.add(token);
  for (const offset of [0, 1000, MINUTE - 1]) {
    assert.is(await sessions.isSessionActive(token.sessionId, at(offset)), true);
  }
  assert.is(calls('isSessionActive'), 1);
  assert.is(await sessions.isSessionActive(token.sessionId, at(MINUTE)), true);
  assert.is(calls('isSessionActive'), 2);
});

test('logging out through the cache ends the session at once', async () => {
  const { sessions, user } = await caches();
  const token = aRefreshToken({ userId: user.id });
  await sessions.add(token);
  assert.is(await sessions.isSessionActive(token.sessionId, at(0)), true);
  await sessions.revokeSession(token.sessionId, at(1));
  assert.is(await sessions.isSessionActive(token.sessionId, at(2)), false);
});

test("revoking a user through the cache ends that user's sessions at once", async () => {
  const { sessions, user, persistence } = await caches();
  const other = aUser();
  await persistence.users.save(other);
  const mine = aRefreshToken({ userId: user.id });
  const theirs = aRefreshToken({ userId: other.id });
  await sessions.add(mine);
  await sessions.add(theirs);
  await sessions.isSessionActive(mine.sessionId, at(0));
  await sessions.isSessionActive(theirs.sessionId, at(0));
  await sessions.revokeUser(user.id, at(1));
  assert.is(await sessions.isSessionActive(mine.sessionId, at(2)), false);
  assert.is(await sessions.isSessionActive(theirs.sessionId, at(2)), true);
});

test('a session ending within the horizon is active until its last token expires, not a moment longer', async () => {
  const { sessions, user } = await caches();
  const token = aRefreshToken({ userId: user.id, expiresAt: at(30_000) });
  await sessions.add(token);
  assert.is(await sessions.isSessionActive(token.sessionId, at(0)), true);
  assert.is(await sessions.isSessionActive(token.sessionId, at(29_999)), true);
  assert.is(await sessions.isSessionActive(token.sessionId, at(30_000)), false);
});

test('an ended session is answered from memory until a token is added to it', async () => {
  const { sessions, user, calls } = await caches();
  const sessionId = randomUUID();
  await sessions.add(aRefreshToken({ userId: user.id, sessionId, revokedAt: at(0) }));
  assert.is(await sessions.isSessionActive(sessionId, at(0)), false);
  const asked = calls('isSessionActive');
  assert.is(await sessions.isSessionActive(sessionId, at(HOUR)), false);
  assert.is(calls('isSessionActive'), asked);
  await sessions.add(aRefreshToken({ userId: user.id, sessionId, expiresAt: at(2 * HOUR) }));
  assert.is(await sessions.isSessionActive(sessionId, at(HOUR)), true);
});

test('removing expired tokens ahead of time is seen at once', async () => {
  const { sessions, user } = await caches();
  const token = aRefreshToken({ userId: user.id, expiresAt: at(HOUR) });
  await sessions.add(token);
  assert.is(await sessions.isSessionActive(token.sessionId, at(0)), true);
  assert.is(await sessions.deleteExpired(at(2 * HOUR)), 1);
  assert.is(await sessions.isSessionActive(token.sessionId, at(0)), false);
});

test('a revocation made around the cache is seen once the horizon has passed', async () => {
  const { persistence, sessions, user } = await caches();
  const token = aRefreshToken({ userId: user.id, expiresAt: at(HOUR) });
  await sessions.add(token);
  assert.is(await sessions.isSessionActive(token.sessionId, at(0)), true);
  await persistence.refreshTokens.revokeSession(token.sessionId, at(1));
  assert.is(await sessions.isSessionActive(token.sessionId, at(MINUTE - 1)), true);
  assert.is(await sessions.isSessionActive(token.sessionId, at(MINUTE)), false);
});

test.run();
