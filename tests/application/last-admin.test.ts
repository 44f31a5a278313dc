import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SYSTEM_ACCOUNTABILITY as ADMIN } from '../../src/domain/accountability.ts';
import { authFixture, rejectsWith } from '../support/auth-fixture.ts';

async function withOneAdmin() {
  const f = authFixture();
  await f.bootstrap.execute(null, { adminEmail: 'root@example.com', adminPassword: 'root-password' });
  const root = (await f.persistence.users.findByEmail('root@example.com'))!;
  return { f, root, adminRole: root.roleId! };
}

test('the last active admin cannot be deleted, suspended or demoted', async () => {
  const { f, root } = await withOneAdmin();
  const other = await f.createRole.execute(ADMIN, { name: 'Editors' });
  await rejectsWith(f.deleteUser.execute(ADMIN, { id: root.id }), 'INVALID_PAYLOAD');
  await rejectsWith(
    f.updateUser.execute(ADMIN, { id: root.id, changes: { status: 'suspended' } }),
    'INVALID_PAYLOAD',
  );
  await rejectsWith(
    f.updateUser.execute(ADMIN, { id: root.id, changes: { role: other.id } }),
    'INVALID_PAYLOAD',
  );
  await rejectsWith(f.updateUser.execute(ADMIN, { id: root.id, changes: { role: null } }), 'INVALID_PAYLOAD');
  assert.is((await f.persistence.users.findById(root.id))?.status, 'active', 'nothing was written');
});

test('the last role giving admin access to an active user cannot lose it or be deleted', async () => {
  const { f, adminRole } = await withOneAdmin();
  await rejectsWith(
    f.updateRole.execute(ADMIN, { id: adminRole, changes: { admin_access: false } }),
    'INVALID_PAYLOAD',
  );
  await rejectsWith(f.deleteRole.execute(ADMIN, { id: adminRole }), 'INVALID_PAYLOAD');
  await f.updateRole.execute(ADMIN, { id: adminRole, changes: { name: 'Admins' } });
});

test('with a second active admin, either may go', async () => {
  const { f, root, adminRole } = await withOneAdmin();
  await f.user({ email: 'second@example.com', role: adminRole });
  await f.updateUser.execute(ADMIN, { id: root.id, changes: { status: 'suspended' } });
  await rejectsWith(
    f.deleteUser.execute(ADMIN, { id: (await f.persistence.users.findByEmail('second@example.com'))!.id }),
    'INVALID_PAYLOAD',
  );
});

test('another admin role keeps the installation administrable', async () => {
  const { f, adminRole } = await withOneAdmin();
  const backup = await f.createRole.execute(ADMIN, { name: 'Backup admins', admin_access: true });
  await f.user({ email: 'backup@example.com', role: backup.id });
  await f.deleteRole.execute(ADMIN, { id: adminRole });
});

test('ordinary users and roles are not held back by the guard', async () => {
  const { f } = await withOneAdmin();
  const user = await f.user();
  await f.updateUser.execute(ADMIN, { id: user.id, changes: { status: 'suspended' } });
  await f.deleteUser.execute(ADMIN, { id: user.id });
  await f.deleteRole.execute(ADMIN, { id: user.role! });
});

test.run();
