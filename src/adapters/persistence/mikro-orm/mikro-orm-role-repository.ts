import type { Selectable } from 'kysely';
import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { RoleRepository } from '../../../application/ports/role-repository.ts';
import type { SystemQuery } from '../../../application/ports/system-query.ts';
import { ROLES_COLLECTION } from '../../../application/system-queries/system-collections.ts';
import { Role, type RoleChanges } from '../../../domain/role.ts';
import type { SystemDatabase } from './system-database.ts';
import { runSystemQuery, type SystemSource } from './system-query-statement.ts';
import type { SystemTables } from './system-tables.ts';
import { isUuid } from './uuid.ts';

const ROLES: SystemSource = (db) => db.selectFrom('datagate_roles').selectAll();

const UNIQUE = { datagate_roles_name_unique: 'name' };

export class MikroOrmRoleRepository implements RoleRepository {
  constructor(private readonly database: SystemDatabase) {}

  async findById(id: string) {
    if (!isUuid(id)) return null;
    const row = await this.database.run((db) =>
      db.selectFrom('datagate_roles').selectAll().where('id', '=', id).executeTakeFirst(),
    );
    return row ? toRole(row) : null;
  }

  async findByName(name: string) {
    const row = await this.database.run((db) =>
      db.selectFrom('datagate_roles').selectAll().where('name', '=', name).executeTakeFirst(),
    );
    return row ? toRole(row) : null;
  }

  async list() {
    const rows = await this.database.run((db) =>
      db.selectFrom('datagate_roles').selectAll().orderBy('name').execute(),
    );
    return rows.map(toRole);
  }

  async query(query: SystemQuery) {
    const { rows, ...counts } = await runSystemQuery<Selectable<SystemTables['datagate_roles']>>(
      this.database,
      ROLES,
      ROLES_COLLECTION,
      ['name', 'id'],
      query,
    );
    return { records: rows.map(toRole), ...counts };
  }

  async save(role: Role, activity?: ActivityEntry) {
    const row = roleRow(role);
    await this.database.writeKeepingAnAdmin(
      async (db) => {
        await db
          .insertInto('datagate_roles')
          .values({ id: role.id, ...row })
          .onConflict((conflict) => conflict.column('id').doUpdateSet(row))
          .execute();
        return true;
      },
      activity,
      UNIQUE,
    );
  }

  async update(id: string, changes: RoleChanges, activity?: ActivityEntry) {
    let updated: Role | null = null;
    await this.database.writeKeepingAnAdmin(
      async (db) => {
        const row = await db
          .updateTable('datagate_roles')
          .set((eb) => ({ name: eb.ref('name'), ...changedColumns(changes) }))
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        updated = row ? toRole(row) : null;
        return updated !== null;
      },
      activity,
      UNIQUE,
    );
    return updated;
  }

  async delete(id: string, activity?: ActivityEntry) {
    if (!isUuid(id)) return false;
    // Users holding the role are set to no role by the foreign key (`on delete set null`).
    return this.database.writeKeepingAnAdmin(async (db) => {
      const result = await db.deleteFrom('datagate_roles').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    }, activity);
  }
}

function roleRow(role: Role) {
  return { name: role.name, description: role.description, admin_access: role.adminAccess };
}

/** The columns `changes` sets, and only those. */
function changedColumns(changes: RoleChanges) {
  const columns: Partial<ReturnType<typeof roleRow>> = {};
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.description !== undefined) columns.description = changes.description;
  if (changes.adminAccess !== undefined) columns.admin_access = changes.adminAccess;
  return columns;
}

function toRole(row: Selectable<SystemTables['datagate_roles']>): Role {
  return new Role({
    id: row.id,
    name: row.name,
    description: row.description,
    adminAccess: row.admin_access,
  });
}
