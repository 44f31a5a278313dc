import { type Selectable, sql } from 'kysely';
import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { SystemQuery } from '../../../application/ports/system-query.ts';
import type { UserRepository } from '../../../application/ports/user-repository.ts';
import { USERS_COLLECTION } from '../../../application/system-queries/system-collections.ts';
import { User, type UserChanges } from '../../../domain/user.ts';
import type { SystemDatabase } from './system-database.ts';
import { runSystemQuery, type SystemSource } from './system-query-statement.ts';
import { type SystemTables, toDate } from './system-tables.ts';
import { isUuid } from './uuid.ts';

/** The users with `token` for the digest: filters only ever test it for null (system-collections.ts). */
const USERS: SystemSource = (db) =>
  db.selectFrom('datagate_users').selectAll().select(sql<string | null>`token_digest`.as('token'));

const UNIQUE = { datagate_users_email_unique: 'email', datagate_users_token_digest_unique: 'token' };

export class MikroOrmUserRepository implements UserRepository {
  constructor(private readonly database: SystemDatabase) {}

  async findById(id: string) {
    if (!isUuid(id)) return null;
    return this.findOne('id', id);
  }

  async findByEmail(email: string) {
    return this.findOne('email', email);
  }

  async findByTokenDigest(digest: string) {
    return this.findOne('token_digest', digest);
  }

  async list() {
    const rows = await this.database.run((db) =>
      db.selectFrom('datagate_users').selectAll().orderBy('created_at').orderBy('id').execute(),
    );
    return rows.map(toUser);
  }

  async query(query: SystemQuery) {
    const { rows, ...counts } = await runSystemQuery<Selectable<SystemTables['datagate_users']>>(
      this.database,
      USERS,
      USERS_COLLECTION,
      ['created_at', 'id'],
      query,
    );
    return { records: rows.map(toUser), ...counts };
  }

  async save(user: User, activity?: ActivityEntry) {
    const row = userRow(user);
    await this.database.writeKeepingAnAdmin(
      async (db) => {
        await db
          .insertInto('datagate_users')
          .values({ id: user.id, ...row, created_at: user.createdAt.toISOString() })
          .onConflict((conflict) => conflict.column('id').doUpdateSet(row))
          .execute();
        return true;
      },
      activity,
      UNIQUE,
    );
  }

  async update(id: string, changes: UserChanges, activity?: ActivityEntry) {
    let updated: User | null = null;
    await this.database.writeKeepingAnAdmin(
      async (db) => {
        const row = await db
          .updateTable('datagate_users')
          .set((eb) => ({ email: eb.ref('email'), ...changedColumns(changes) }))
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        updated = row ? toUser(row) : null;
        return updated !== null;
      },
      activity,
      UNIQUE,
    );
    return updated;
  }

  async delete(id: string, activity?: ActivityEntry) {
    if (!isUuid(id)) return false;
    // The user's refresh tokens go with the row (`on delete cascade`).
    return this.database.writeKeepingAnAdmin(async (db) => {
      const result = await db.deleteFrom('datagate_users').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    }, activity);
  }

  async anyAdminExists() {
    const row = await this.database.run((db) =>
      db
        .selectNoFrom((eb) =>
          eb
            .exists(
              eb
                .selectFrom('datagate_users')
                .innerJoin('datagate_roles', 'datagate_roles.id', 'datagate_users.role')
                .where('datagate_roles.admin_access', '=', true)
                .select(sql.lit(1).as('one')),
            )
            .as('found'),
        )
        .executeTakeFirstOrThrow(),
    );
    return row.found === true;
  }
  async activeAdmins() {
    return this.database.run((db) =>
      db
        .selectFrom('datagate_users')
        .innerJoin('datagate_roles', 'datagate_roles.id', 'datagate_users.role')
        .where('datagate_roles.admin_access', '=', true)
        .where('datagate_users.status', '=', 'active')
        .select(['datagate_users.id as id', 'datagate_roles.id as roleId'])
        .execute(),
    );
  }

  private async findOne(column: 'id' | 'email' | 'token_digest', value: string) {
    const row = await this.database.run((db) =>
      db.selectFrom('datagate_users').selectAll().where(column, '=', value).executeTakeFirst(),
    );
    return row ? toUser(row) : null;
  }
}

function userRow(user: User) {
  return {
    email: user.email,
    password_hash: user.passwordHash,
    role: user.roleId,
    status: user.status,
    first_name: user.firstName,
    last_name: user.lastName,
    token_digest: user.tokenDigest,
  };
}

/** The columns `changes` sets, and only those. */
function changedColumns(changes: UserChanges) {
  const columns: Partial<ReturnType<typeof userRow>> = {};
  if (changes.email !== undefined) columns.email = changes.email;
  if (changes.passwordHash !== undefined) columns.password_hash = changes.passwordHash;
  if (changes.roleId !== undefined) columns.role = changes.roleId;
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.firstName !== undefined) columns.first_name = changes.firstName;
  if (changes.lastName !== undefined) columns.last_name = changes.lastName;
  if (changes.tokenDigest !== undefined) columns.token_digest = changes.tokenDigest;
  return columns;
}

function toUser(row: Selectable<SystemTables['datagate_users']>): User {
  return new User({
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    roleId: row.role,
    status: row.status,
    firstName: row.first_name,
    lastName: row.last_name,
    tokenDigest: row.token_digest,
    createdAt: toDate(row.created_at),
  });
}
