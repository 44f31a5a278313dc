import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { systemActivity } from '../../../../src/application/activity/system-activity.ts';
import { PUBLIC_ACCOUNTABILITY } from '../../../../src/domain/accountability.ts';
import { Role } from '../../../../src/domain/role.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = { persistence: MikroOrmPersistence };

const REFUSE = sql.id('refuse_every_entry');

/**
 * docs/decisions/0033: a change to a system area and its activity entry share one transaction, so an entry
 * that cannot be written takes the change down with it, DDL included. The entry is made impossible here by
 * a check no new row passes (`not valid`: the rows already there are not checked).
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `system changes and their activity in one transaction on ${backend}`,
)) {
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    await sql`alter table datagate_activity add constraint ${REFUSE} check (false) not valid`.execute(
      userTablesDatabase(context.persistence.orm),
    );
  });
  test.after.each(async ({ persistence }) => {
    await sql`alter table datagate_activity drop constraint ${REFUSE}`.execute(
      userTablesDatabase(persistence.orm),
    );
  });
  test.after(() => target.dispose());

  const refused = (attempt: Promise<unknown>) =>
    attempt.then(
      () => 'committed',
      () => 'refused',
    );

  test('a role whose entry cannot be written is not saved, nor deleted', async ({ persistence }) => {
    const role = new Role({ id: randomUUID(), name: 'Unrecorded', description: null, adminAccess: false });
    const entry = systemActivity(PUBLIC_ACCOUNTABILITY, 'create', 'datagate_roles', role.id);
    assert.is(await refused(persistence.roles.save(role, entry)), 'refused');
    assert.is(await persistence.roles.findById(role.id), null);
    await persistence.roles.save(role);
    assert.is(await refused(persistence.roles.delete(role.id, { ...entry, action: 'delete' })), 'refused');
    assert.ok(await persistence.roles.findById(role.id));
  });

  test('a collection or field whose entry cannot be written is not created: the DDL rolls back', async ({
    persistence,
  }) => {
    const name = `unrecorded_${Date.now().toString(36)}`;
    const fields = [{ field: 'id', type: 'integer', isPrimaryKey: true }] as const;
    const created = persistence.schemaEditor.createCollection(
      name,
      fields,
      systemActivity(PUBLIC_ACCOUNTABILITY, 'create', 'datagate_collections', name),
    );
    assert.is(await refused(created), 'refused');
    assert.not.ok(persistence.schema.current().collections.has(name));
    await persistence.schemaEditor.createCollection(name, fields);
    try {
      const added = persistence.schemaEditor.addField(
        name,
        { field: 'note', type: 'text' },
        systemActivity(PUBLIC_ACCOUNTABILITY, 'create', 'datagate_fields', `${name}.note`),
      );
      assert.is(await refused(added), 'refused');
      const fieldNames = (await persistence.schema.refresh()).collections
        .get(name)!
        .fields.map((field) => field.name);
      assert.equal(fieldNames, ['id']);
    } finally {
      await persistence.schemaEditor.dropCollection(name);
    }
  });

  test.run();
}
