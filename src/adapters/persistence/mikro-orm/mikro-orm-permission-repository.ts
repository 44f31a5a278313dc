import type { Selectable } from 'kysely';
import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { PermissionRepository } from '../../../application/ports/permission-repository.ts';
import type { SystemQuery } from '../../../application/ports/system-query.ts';
import { PERMISSIONS_COLLECTION } from '../../../application/system-queries/system-collections.ts';
import { Permission, type PermissionAction } from '../../../domain/permissions/permission.ts';
import type { SystemDatabase } from './system-database.ts';
import { runSystemQuery, type SystemSource } from './system-query-statement.ts';
import type { SystemTables } from './system-tables.ts';
import { isUuid } from './uuid.ts';

const PERMISSIONS: SystemSource = (db) => db.selectFrom('datagate_permissions').selectAll();

export class MikroOrmPermissionRepository implements PermissionRepository {
  constructor(private readonly database: SystemDatabase) {}

  async findById(id: string) {
    if (!isUuid(id)) return null;
    const row = await this.database.run((db) =>
      db.selectFrom('datagate_permissions').selectAll().where('id', '=', id).executeTakeFirst(),
    );
    return row ? toPermission(row) : null;
  }

  async list() {
    const rows = await this.database.run((db) =>
      db
        .selectFrom('datagate_permissions')
        .selectAll()
        .orderBy('collection')
        .orderBy('action')
        .orderBy('id')
        .execute(),
    );
    return rows.map(toPermission);
  }

  async query(query: SystemQuery) {
    const { rows, ...counts } = await runSystemQuery<Selectable<SystemTables['datagate_permissions']>>(
      this.database,
      PERMISSIONS,
      PERMISSIONS_COLLECTION,
      ['collection', 'action', 'id'],
      query,
    );
    return { records: rows.map(toPermission), ...counts };
  }

  async listFor(role: string | null, collection: string, action: PermissionAction) {
    if (role !== null && !isUuid(role)) return [];
    const rows = await this.database.run((db) =>
      db
        .selectFrom('datagate_permissions')
        .selectAll()
        // `role = null` is never true in SQL: the public permissions need `is null`.
        .where('role', role === null ? 'is' : '=', role)
        .where('collection', '=', collection)
        .where('action', '=', action)
        .orderBy('id')
        .execute(),
    );
    return rows.map(toPermission);
  }

  async save(permission: Permission, activity?: ActivityEntry) {
    const row = permissionRow(permission);
    await this.database.write(async (db) => {
      await db
        .insertInto('datagate_permissions')
        .values({ id: permission.id, ...row })
        .onConflict((conflict) => conflict.column('id').doUpdateSet(row))
        .execute();
      return true;
    }, activity);
  }

  async update(id: string, change: (stored: Permission) => Promise<Permission>, activity?: ActivityEntry) {
    if (!isUuid(id)) return null;
    let updated: Permission | null = null;
    // The row stays locked from its reading to its writing: a change of it at once, on any instance,
    // reads it once this one has committed.
    await this.database.writeInTransaction(async (db) => {
      const row = await db
        .selectFrom('datagate_permissions')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return false;
      updated = await change(toPermission(row));
      await db.updateTable('datagate_permissions').set(permissionRow(updated)).where('id', '=', id).execute();
      return true;
    }, activity);
    return updated;
  }

  async delete(id: string, activity?: ActivityEntry) {
    if (!isUuid(id)) return false;
    return this.database.write(async (db) => {
      const result = await db.deleteFrom('datagate_permissions').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    }, activity);
  }
}

function permissionRow(permission: Permission) {
  return {
    role: permission.role,
    collection: permission.collection,
    action: permission.action,
    permissions: toJson(permission.permissions),
    validation: toJson(permission.validation),
    presets: toJson(permission.presets),
    fields: toJson(permission.fields),
  };
}

/**
 * JSON text, not the value itself: the drivers would send a JS array as a PostgreSQL array literal, which
 * is not JSON. SQL null stays SQL null (not the JSON `null`), so "no filter" reads back as null.
 */
function toJson(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function toPermission(row: Selectable<SystemTables['datagate_permissions']>): Permission {
  return new Permission({
    id: row.id,
    role: row.role,
    collection: row.collection,
    action: row.action,
    permissions: row.permissions,
    validation: row.validation,
    presets: row.presets,
    fields: row.fields,
  });
}
