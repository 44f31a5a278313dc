import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { Role } from '../../src/domain/role.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { rejectsAsNotUnique } from './assertions.ts';
import { aRole, aUser } from './fixtures.ts';

const byName = (a: Role, b: Role) => a.name.localeCompare(b.name);

export function roleRepositoryContract(target: PersistenceTarget) {
  const test = skippableSuite<{ persistence: Persistence }>(`RoleRepository on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
  });
  test.after(() => target.dispose());

  test('a saved role is found by id and by name, as a Role', async ({ persistence: { roles } }) => {
    const role = aRole({ description: 'Edits content', adminAccess: true });
    await roles.save(role);
    const byId = await roles.findById(role.id);
    assert.instance(byId, Role);
    assert.equal(byId, role);
    assert.equal(await roles.findByName(role.name), role);
  });

  test('unknown and malformed ids and unknown names find nothing', async ({ persistence: { roles } }) => {
    await roles.save(aRole({ name: 'Editor' }));
    assert.is(await roles.findById(randomUUID()), null);
    assert.is(await roles.findById('not-a-uuid'), null);
    assert.is(await roles.findByName('editor'), null);
  });

  test('saving an existing id updates the role', async ({ persistence: { roles } }) => {
    const role = aRole({ name: 'Editor' });
    await roles.save(role);
    const changed = new Role({ ...role, name: 'Author', description: 'Writes', adminAccess: true });
    await roles.save(changed);
    assert.equal(await roles.findById(role.id), changed);
    assert.is(await roles.findByName('Editor'), null);
    assert.is((await roles.list()).length, 1);
  });

  test('saving a role unchanged is not a name conflict with itself', async ({ persistence: { roles } }) => {
    const role = aRole();
    await roles.save(role);
    await roles.save(role);
    assert.equal(await roles.list(), [role]);
  });

  test('a taken name is RECORD_NOT_UNIQUE on name and changes nothing', async ({
    persistence: { roles },
  }) => {
    const editor = aRole({ name: 'Editor' });
    const author = aRole({ name: 'Author' });
    await roles.save(editor);
    await roles.save(author);
    await rejectsAsNotUnique(roles.save(aRole({ name: 'Editor' })), 'name');
    await rejectsAsNotUnique(roles.save(new Role({ ...author, name: 'Editor' })), 'name');
    assert.equal((await roles.list()).sort(byName), [author, editor]);
  });

  test('list returns every role', async ({ persistence: { roles } }) => {
    assert.equal(await roles.list(), []);
    const saved = [aRole({ name: 'b' }), aRole({ name: 'a' }), aRole({ name: 'c' })];
    for (const role of saved) await roles.save(role);
    assert.equal((await roles.list()).sort(byName), saved.sort(byName));
  });

  test('update sets only the members given, and never brings back a deleted role', async ({
    persistence: { roles },
  }) => {
    const role = aRole({ name: 'Editors', adminAccess: true });
    await roles.save(role);
    // Two changes made from the same read: each keeps the other's member.
    await roles.update(role.id, { adminAccess: false });
    const updated = await roles.update(role.id, { name: 'Writers' });
    assert.equal([updated?.name, updated?.adminAccess], ['Writers', false]);
    assert.equal(await roles.findById(role.id), updated);
    await roles.delete(role.id);
    assert.is(await roles.update(role.id, { name: 'Back' }), null);
    assert.is(await roles.findById(role.id), null);
  });

  test('delete reports whether there was such a role', async ({ persistence: { roles } }) => {
    const role = aRole();
    await roles.save(role);
    assert.is(await roles.delete(role.id), true);
    assert.is(await roles.findById(role.id), null);
    assert.is(await roles.delete(role.id), false);
    assert.is(await roles.delete('not-a-uuid'), false);
  });

  test('deleting a role leaves its users with no role', async ({ persistence: { roles, users } }) => {
    const role = aRole();
    const other = aRole();
    await roles.save(role);
    await roles.save(other);
    const holder = aUser({ roleId: role.id });
    const bystander = aUser({ roleId: other.id });
    await users.save(holder);
    await users.save(bystander);
    await roles.delete(role.id);
    assert.is((await users.findById(holder.id))?.roleId, null);
    assert.is((await users.findById(bystander.id))?.roleId, other.id);
  });

  return test;
}
