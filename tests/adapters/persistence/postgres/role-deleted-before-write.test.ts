import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { DomainError } from '../../../../src/domain/errors.ts';
import { Permission } from '../../../../src/domain/permissions/permission.ts';
import { aUser } from '../../../contracts/fixtures.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = { persistence: MikroOrmPersistence };

async function refusedAs(attempt: Promise<unknown>): Promise<[string, unknown]> {
  try {
    await attempt;
  } catch (error) {
    assert.instance(error, DomainError);
    return [(error as DomainError).code, (error as DomainError).extensions.field];
  }
  throw new Error('the write went through');
}

/**
 * A user or permission is checked to name an existing role before it is written, but an admin can delete
 * the role in between: the write then answers what the check would have (400 FAILED_VALIDATION on `role`),
 * not the database's foreign key error (a 500).
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `a write naming a role deleted since its check on ${backend}`,
)) {
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
  });
  test.after(() => target.dispose());

  test('a user is refused as FAILED_VALIDATION on role, and not saved', async ({ persistence }) => {
    const user = aUser({ roleId: randomUUID() });
    assert.equal(await refusedAs(persistence.users.save(user)), ['FAILED_VALIDATION', 'role']);
    assert.is(await persistence.users.findById(user.id), null);
  });

  test('a permission is refused as FAILED_VALIDATION on role, and not saved', async ({ persistence }) => {
    const permission = new Permission({
      id: randomUUID(),
      role: randomUUID(),
      collection: 'cargos',
      action: 'read',
      permissions: null,
      validation: null,
      presets: null,
      fields: ['*'],
    });
    assert.equal(await refusedAs(persistence.permissions.save(permission)), ['FAILED_VALIDATION', 'role']);
    assert.is(await persistence.permissions.findById(permission.id), null);
  });

  test.run();
}
