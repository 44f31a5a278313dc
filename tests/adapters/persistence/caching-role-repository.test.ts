import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CachingRoleRepository } from '../../../src/adapters/persistence/caching-role-repository.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { Role } from '../../../src/domain/role.ts';
import { aRole } from '../../contracts/fixtures.ts';
import { counting } from './counting.ts';

function caches() {
  const persistence = createInMemoryPersistence();
  const store = counting(persistence.roles);
  const forgotten: string[] = [];
  const roles = new CachingRoleRepository(store.repository, {
    forgetHoldersOf: (roleId) => forgotten.push(roleId),
  });
  return { roles, calls: store.calls, forgotten };
}

test('a role is read from the store once, then from memory, found or not', async () => {
  const { roles, calls } = caches();
  const role = aRole();
  await roles.save(role);
  const unknown = randomUUID();
  for (let i = 0; i < 3; i++) {
    assert.equal(await roles.findById(role.id), role);
    assert.is(await roles.findById(unknown), null);
  }
  assert.is(calls('findById'), 2);
});

test('a change of admin access through the cache is seen at once', async () => {
  const { roles } = caches();
  const role = aRole({ adminAccess: false });
  await roles.save(role);
  await roles.findById(role.id);
  await roles.save(new Role({ ...role, adminAccess: true }));
  assert.is((await roles.findById(role.id))?.adminAccess, true);
});

test('a deleted role is no longer found, and the user cache is told to drop its holders', async () => {
  const { roles, forgotten } = caches();
  const role = aRole();
  await roles.save(role);
  await roles.findById(role.id);
  assert.is(await roles.delete(role.id), true);
  assert.is(await roles.findById(role.id), null);
  assert.equal(forgotten, [role.id]);
});

test('a returned role is a copy: changing it changes nothing cached', async () => {
  const { roles } = caches();
  const role = aRole({ adminAccess: false });
  await roles.save(role);
  const first = await roles.findById(role.id);
  if (!first) throw new Error('the role was just saved');
  first.adminAccess = true;
  assert.is((await roles.findById(role.id))?.adminAccess, false);
});

test.run();
