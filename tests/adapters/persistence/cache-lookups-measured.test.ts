import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cachingPersistence } from '../../../src/adapters/persistence/caching-persistence.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { CachingAccessTokens } from '../../../src/adapters/tokens/caching-access-tokens.ts';
import { Permission } from '../../../src/domain/permissions/permission.ts';
import { aRefreshToken, aRole, at, aUser, digest, T0 } from '../../contracts/fixtures.ts';
import { FakeAccessTokens } from '../../support/fakes/fake-access-tokens.ts';
import { RecordingMetrics } from '../../support/fakes/recording-metrics.ts';

function measured() {
  const metrics = new RecordingMetrics();
  return { metrics, cached: cachingPersistence(createInMemoryPersistence(), metrics) };
}

test('each cache counts a first lookup as a miss and the repeats as hits', async () => {
  const { metrics, cached } = measured();
  const role = aRole();
  const user = aUser({ roleId: role.id, tokenDigest: digest('a1') });
  await cached.roles.save(role);
  await cached.users.save(user);
  const token = aRefreshToken({ userId: user.id });
  await cached.refreshTokens.add(token);
  for (let i = 0; i < 3; i++) {
    await cached.users.findById(user.id);
    await cached.users.findByTokenDigest(digest('a1'));
    await cached.roles.findById(role.id);
    await cached.refreshTokens.isSessionActive(token.sessionId, T0);
    await cached.permissions.listFor(role.id, 'articles', 'read');
  }
  for (const name of ['users', 'user_tokens', 'roles', 'sessions', 'permissions'] as const) {
    assert.equal(metrics.lookupsOf(name), { hits: 2, misses: 1 }, name);
  }
});

test('a lookup found missing and kept as such is a hit the second time', async () => {
  const { metrics, cached } = measured();
  await cached.users.findById(randomUUID());
  await cached.users.findByTokenDigest(digest('nobody'));
  const unknown = randomUUID();
  await cached.users.findById(unknown);
  await cached.users.findById(unknown);
  assert.equal(metrics.lookupsOf('users'), { hits: 1, misses: 2 });
  assert.equal(metrics.lookupsOf('user_tokens'), { hits: 0, misses: 1 });
});

test('a lookup after the entry was dropped by a change is a miss again', async () => {
  const { metrics, cached } = measured();
  const user = aUser();
  await cached.users.save(user);
  await cached.users.findById(user.id);
  await cached.users.save(user);
  await cached.users.findById(user.id);
  assert.equal(metrics.lookupsOf('users'), { hits: 0, misses: 2 });
});

test('permissions: a change empties the index, so the next lookup is a miss', async () => {
  const { metrics, cached } = measured();
  const role = aRole();
  await cached.permissions.listFor(role.id, 'articles', 'read');
  await cached.permissions.save(
    new Permission({
      id: randomUUID(),
      role: role.id,
      collection: 'articles',
      action: 'read',
      fields: ['*'],
      permissions: null,
      validation: null,
      presets: null,
    }),
  );
  await cached.permissions.listFor(role.id, 'articles', 'read');
  await cached.permissions.listFor(role.id, 'articles', 'read');
  assert.equal(metrics.lookupsOf('permissions'), { hits: 1, misses: 2 });
});

test('access tokens: a verified token is a hit on every later request', async () => {
  const metrics = new RecordingMetrics();
  const inner = new FakeAccessTokens(60_000);
  const tokens = new CachingAccessTokens(inner, metrics.cache('access_tokens'));
  const { token } = await tokens.issue({ sub: randomUUID(), role: null, sid: randomUUID() }, at(0));
  for (let i = 0; i < 3; i++) await tokens.verify(token, at(1000));
  assert.equal(metrics.lookupsOf('access_tokens'), { hits: 2, misses: 1 });
});

test.run();
