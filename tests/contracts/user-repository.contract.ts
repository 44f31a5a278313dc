import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { User } from '../../src/domain/user.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { rejectsAsNotUnique } from './assertions.ts';
import { aRefreshToken, aRole, aUser, digest, T0 } from './fixtures.ts';

const byEmail = (a: User, b: User) => a.email.localeCompare(b.email);

export function userRepositoryContract(target: PersistenceTarget) {
  const test = skippableSuite<{ persistence: Persistence }>(`UserRepository on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
  });
  test.after(() => target.dispose());

  test('a saved user comes back whole, as a User with a Date', async ({ persistence: { users, roles } }) => {
    const role = aRole();
    await roles.save(role);
    const user = aUser({
      email: 'Ada.Lovelace@example.com',
      roleId: role.id,
      status: 'suspended',
      firstName: 'Ada',
      lastName: 'Lovelace',
      tokenDigest: digest('ab'),
    });
    await users.save(user);
    const found = await users.findById(user.id);
    assert.instance(found, User);
    assert.instance(found?.createdAt, Date);
    assert.is(found?.createdAt.getTime(), T0.getTime());
    assert.equal(found, user);
  });

  test('findByEmail compares the address exactly as given', async ({ persistence: { users } }) => {
    const user = aUser({ email: 'ada@example.com' });
    await users.save(user);
    assert.equal(await users.findByEmail('ada@example.com'), user);
    assert.is(await users.findByEmail('Ada@example.com'), null);
    assert.is(await users.findByEmail('bob@example.com'), null);
  });

  test('findByTokenDigest finds the static token holder only', async ({ persistence: { users } }) => {
    const holder = aUser({ tokenDigest: digest('a1') });
    await users.save(holder);
    await users.save(aUser());
    assert.equal(await users.findByTokenDigest(digest('a1')), holder);
    assert.is(await users.findByTokenDigest(digest('b2')), null);
  });

  test('unknown and malformed ids find nothing', async ({ persistence: { users } }) => {
    await users.save(aUser());
    assert.is(await users.findById(randomUUID()), null);
    assert.is(await users.findById('not-a-uuid'), null);
  });

  test('saving an existing id updates the user', async ({ persistence: { users, roles } }) => {
    const role = aRole();
    await roles.save(role);
    const user = aUser({ tokenDigest: digest('01') });
    await users.save(user);
    const changed = new User({
      ...user,
      email: 'new@example.com',
      passwordHash: 'another-hash',
      roleId: role.id,
      status: 'suspended',
      firstName: 'New',
      lastName: 'Name',
      tokenDigest: null,
    });
    await users.save(changed);
    assert.equal(await users.findById(user.id), changed);
    assert.is(await users.findByEmail(user.email), null);
    assert.is(await users.findByTokenDigest(digest('01')), null);
    assert.is((await users.list()).length, 1);
  });

  test('a taken e-mail is RECORD_NOT_UNIQUE on email', async ({ persistence: { users } }) => {
    const ada = aUser({ email: 'ada@example.com' });
    const bob = aUser({ email: 'bob@example.com' });
    await users.save(ada);
    await users.save(bob);
    await rejectsAsNotUnique(users.save(aUser({ email: 'ada@example.com' })), 'email');
    await rejectsAsNotUnique(users.save(new User({ ...bob, email: 'ada@example.com' })), 'email');
    assert.equal((await users.list()).sort(byEmail), [ada, bob]);
  });

  test('a taken static token is RECORD_NOT_UNIQUE on token', async ({ persistence: { users } }) => {
    await users.save(aUser({ tokenDigest: digest('aa') }));
    await rejectsAsNotUnique(users.save(aUser({ tokenDigest: digest('aa') })), 'token');
  });

  test('any number of users may have no static token', async ({ persistence: { users } }) => {
    await users.save(aUser());
    await users.save(aUser());
    assert.is((await users.list()).length, 2);
  });

  test('list returns every user', async ({ persistence: { users } }) => {
    assert.equal(await users.list(), []);
    const saved = [aUser({ email: 'c@x.io' }), aUser({ email: 'a@x.io' }), aUser({ email: 'b@x.io' })];
    for (const user of saved) await users.save(user);
    assert.equal((await users.list()).sort(byEmail), saved.sort(byEmail));
  });

  test('update sets only the members given, and never brings back a deleted user', async ({
    persistence: { users },
  }) => {
    const user = aUser({ firstName: 'Ada' });
    await users.save(user);
    // Two changes made from the same read: each keeps the other's member.
    await users.update(user.id, { status: 'suspended' });
    const updated = await users.update(user.id, { firstName: 'Grace' });
    assert.equal([updated?.firstName, updated?.status], ['Grace', 'suspended']);
    assert.equal(await users.findById(user.id), updated);
    await users.delete(user.id);
    assert.is(await users.update(user.id, { firstName: 'Back' }), null);
    assert.is(await users.findById(user.id), null);
  });

  test('delete reports whether there was such a user', async ({ persistence: { users } }) => {
    const user = aUser();
    await users.save(user);
    assert.is(await users.delete(user.id), true);
    assert.is(await users.findById(user.id), null);
    assert.is(await users.delete(user.id), false);
    assert.is(await users.delete('not-a-uuid'), false);
  });

  test('deleting a user removes their refresh tokens only', async ({
    persistence: { users, refreshTokens },
  }) => {
    const leaving = aUser();
    const staying = aUser();
    await users.save(leaving);
    await users.save(staying);
    const leavingToken = aRefreshToken({ userId: leaving.id });
    const stayingToken = aRefreshToken({ userId: staying.id });
    await refreshTokens.add(leavingToken);
    await refreshTokens.add(stayingToken);
    await users.delete(leaving.id);
    assert.is(await refreshTokens.findByDigest(leavingToken.tokenDigest), null);
    assert.equal(await refreshTokens.findByDigest(stayingToken.tokenDigest), stayingToken);
  });

  test('no admin exists without a user holding an admin role', async ({ persistence: { users, roles } }) => {
    assert.is(await users.anyAdminExists(), false);
    const admin = aRole({ adminAccess: true });
    const editor = aRole();
    await roles.save(admin);
    await roles.save(editor);
    await users.save(aUser({ roleId: editor.id }));
    await users.save(aUser());
    assert.is(await users.anyAdminExists(), false);
  });

  test('a user holding an admin role is an admin, even suspended', async ({
    persistence: { users, roles },
  }) => {
    const admin = aRole({ adminAccess: true });
    await roles.save(admin);
    await users.save(aUser({ roleId: admin.id, status: 'suspended' }));
    assert.is(await users.anyAdminExists(), true);
  });

  // Its holder suspended: the role of the last active admin cannot be deleted (LAST_ADMIN on a database).
  test('deleting the admin role leaves no admin', async ({ persistence: { users, roles } }) => {
    const admin = aRole({ adminAccess: true });
    await roles.save(admin);
    await users.save(aUser({ roleId: admin.id, status: 'suspended' }));
    await roles.delete(admin.id);
    assert.is(await users.anyAdminExists(), false);
  });

  test('active admins are the active users holding an admin role', async ({
    persistence: { users, roles },
  }) => {
    const admin = aRole({ adminAccess: true });
    const editor = aRole();
    await roles.save(admin);
    await roles.save(editor);
    const active = aUser({ roleId: admin.id });
    await users.save(active);
    await users.save(aUser({ roleId: admin.id, status: 'suspended' }));
    await users.save(aUser({ roleId: editor.id }));
    await users.save(aUser());
    assert.equal(await users.activeAdmins(), [{ id: active.id, roleId: admin.id }]);
  });

  return test;
}
