import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CachingRefreshTokenRepository } from '../../../src/adapters/persistence/caching-refresh-token-repository.ts';
import { CachingRoleRepository } from '../../../src/adapters/persistence/caching-role-repository.ts';
import { CachingUserRepository } from '../../../src/adapters/persistence/caching-user-repository.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { UserRepository } from '../../../src/application/ports/user-repository.ts';
import { User } from '../../../src/domain/user.ts';
import { aRefreshToken, aRole, at, aUser, digest } from '../../contracts/fixtures.ts';
import { counting } from './counting.ts';

function caches(options: { maxEntries?: number; maxAgeMs?: number } = {}) {
  let time = 0;
  const persistence = createInMemoryPersistence();
  const store = counting(persistence.users);
  const sessions = new CachingRefreshTokenRepository(persistence.refreshTokens);
  const users = new CachingUserRepository(store.repository, sessions, { ...options, now: () => time });
  const roles = new CachingRoleRepository(persistence.roles, users);
  return { persistence, users, roles, sessions, calls: store.calls, advance: (ms: number) => (time += ms) };
}

test('a user is read from the store once, then from memory, found or not', async () => {
  const { users, calls } = caches();
  const user = aUser({ tokenDigest: digest('a1') });
  await users.save(user);
  const unknown = randomUUID();
  for (let i = 0; i < 3; i++) {
    assert.equal(await users.findById(user.id), user);
    assert.equal(await users.findByTokenDigest(digest('a1')), user);
    assert.is(await users.findById(unknown), null);
    assert.is(await users.findByTokenDigest(digest('b2')), null);
  }
  assert.is(calls('findById'), 2);
  assert.is(calls('findByTokenDigest'), 2);
});

test('a cached user is seen changed at once after a save through the cache', async () => {
  const { users } = caches();
  const user = aUser({ tokenDigest: digest('a1') });
  await users.save(user);
  await users.findById(user.id);
  await users.findByTokenDigest(digest('a1'));
  await users.save(new User({ ...user, status: 'suspended' }));
  assert.is((await users.findById(user.id))?.status, 'suspended');
  assert.is((await users.findByTokenDigest(digest('a1')))?.status, 'suspended');
});

test('a new static token: the old digest finds nothing, the new one the user, though looked up before', async () => {
  const { users } = caches();
  const user = aUser({ tokenDigest: digest('01') });
  await users.save(user);
  assert.equal(await users.findByTokenDigest(digest('01')), user);
  assert.is(await users.findByTokenDigest(digest('02')), null);
  const changed = new User({ ...user, tokenDigest: digest('02') });
  await users.save(changed);
  assert.is(await users.findByTokenDigest(digest('01')), null);
  assert.equal(await users.findByTokenDigest(digest('02')), changed);
});

test('a failed save still drops the entry: the caller may have changed the object it was given', async () => {
  const { users } = caches();
  const taken = aUser({ email: 'taken@example.com' });
  const user = aUser();
  await users.save(taken);
  await users.save(user);
  const given = await users.findById(user.id);
  if (!given) throw new Error('the user was just saved');
  given.email = 'taken@example.com';
  given.status = 'suspended';
  await users.save(given).catch(() => {});
  assert.equal(await users.findById(user.id), user);
});

test('a returned user is a copy: changing it changes nothing cached', async () => {
  const { users } = caches();
  const user = aUser();
  await users.save(user);
  const first = await users.findById(user.id);
  if (!first) throw new Error('the user was just saved');
  first.status = 'suspended';
  assert.is((await users.findById(user.id))?.status, 'active');
});

test('deleting a user through the cache: no longer found, sessions over', async () => {
  const { users, sessions } = caches();
  const user = aUser({ tokenDigest: digest('a1') });
  await users.save(user);
  const token = aRefreshToken({ userId: user.id });
  await sessions.add(token);
  await users.findById(user.id);
  await users.findByTokenDigest(digest('a1'));
  assert.is(await sessions.isSessionActive(token.sessionId, at(0)), true);
  await users.delete(user.id);
  assert.is(await users.findById(user.id), null);
  assert.is(await users.findByTokenDigest(digest('a1')), null);
  assert.is(await sessions.isSessionActive(token.sessionId, at(0)), false);
});

test('deleting a role through the role cache leaves its cached holders with no role', async () => {
  const { users, roles } = caches();
  const role = aRole();
  const other = aRole();
  await roles.save(role);
  await roles.save(other);
  const holder = aUser({ roleId: role.id, tokenDigest: digest('a1') });
  const bystander = aUser({ roleId: other.id });
  await users.save(holder);
  await users.save(bystander);
  await users.findById(holder.id);
  await users.findByTokenDigest(digest('a1'));
  await users.findById(bystander.id);
  await roles.delete(role.id);
  assert.is((await users.findById(holder.id))?.roleId, null);
  assert.is((await users.findByTokenDigest(digest('a1')))?.roleId, null);
  assert.is((await users.findById(bystander.id))?.roleId, other.id);
});

test('random tokens sprayed past the bound are evicted among themselves, never a known token', async () => {
  const { users, calls } = caches({ maxEntries: 50 });
  const holder = aUser({ tokenDigest: digest('a1') });
  await users.save(holder);
  await users.findByTokenDigest(digest('a1'));
  const sprayed = Array.from({ length: 1000 }, () => randomUUID().replaceAll('-', '').padEnd(64, 'f'));
  for (const random of sprayed) assert.is(await users.findByTokenDigest(random), null);
  assert.is(calls('findByTokenDigest'), 1001);
  assert.equal(await users.findByTokenDigest(digest('a1')), holder);
  assert.is(calls('findByTokenDigest'), 1001, 'the known token is still in memory');
  await users.findByTokenDigest(sprayed[0]!);
  assert.is(calls('findByTokenDigest'), 1002, 'the first random token was evicted');
  await users.findByTokenDigest(sprayed[999]!);
  assert.is(calls('findByTokenDigest'), 1002, 'the last one is kept');
});

test('a change made around the cache is seen once the entry is older than its maximum age', async () => {
  const { persistence, users, advance } = caches({ maxAgeMs: 60_000 });
  const user = aUser();
  await users.save(user);
  await users.findById(user.id);
  await persistence.users.save(new User({ ...user, status: 'suspended' }));
  advance(60_000);
  assert.is((await users.findById(user.id))?.status, 'active');
  advance(1);
  assert.is((await users.findById(user.id))?.status, 'suspended');
});

test('a read that started before a save does not put the old user back into the cache', async () => {
  const persistence = createInMemoryPersistence();
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Reads the old record, then waits: the save below lands while this read is in flight.
  const slow: UserRepository = Object.assign(Object.create(persistence.users) as UserRepository, {
    findById: async (id: string) => {
      const found = await persistence.users.findById(id);
      await gate;
      return found;
    },
  });
  const users = new CachingUserRepository(slow, new CachingRefreshTokenRepository(persistence.refreshTokens));
  const user = aUser();
  await persistence.users.save(user);
  const reading = users.findById(user.id);
  await users.save(new User({ ...user, status: 'suspended' }));
  release();
  assert.is((await reading)?.status, 'active', 'it answers what it read');
  assert.is((await users.findById(user.id))?.status, 'suspended', 'but does not keep it');
});

test.run();
