import { type Kysely, sql } from 'kysely';
import { lastAdmin } from '../../../domain/errors.ts';
import type { SystemTables } from './system-tables.ts';

/** Any stable number: only changes to users and roles take this transaction-scoped advisory lock. */
const ADMIN_CHANGES_LOCK = 0x61646d6e;

/**
 * Runs `work` (in transaction `trx`) so that it cannot leave the database without an active admin when
 * it had one. The application's LastAdminGuard judges a change against the admins it read before, so two
 * changes at once (two admins demoting each other, a role deleted while its last other admin is
 * suspended) each saw the other admin and both went through. Here every change of a user or a role waits
 * for the one before it to commit, then the count after the change is taken in its own transaction: on
 * every instance alike, and whatever path the change came by.
 */
export async function keepingAnActiveAdmin<T>(trx: Kysely<SystemTables>, work: () => Promise<T>): Promise<T> {
  await sql`select pg_advisory_xact_lock(${ADMIN_CHANGES_LOCK}::int8)`.execute(trx);
  const before = await activeAdminExists(trx);
  const result = await work();
  if (before && !(await activeAdminExists(trx))) throw lastAdmin();
  return result;
}

async function activeAdminExists(trx: Kysely<SystemTables>): Promise<boolean> {
  const row = await trx
    .selectNoFrom((eb) =>
      eb
        .exists(
          eb
            .selectFrom('datagate_users')
            .innerJoin('datagate_roles', 'datagate_roles.id', 'datagate_users.role')
            .where('datagate_roles.admin_access', '=', true)
            .where('datagate_users.status', '=', 'active')
            .select(sql.lit(1).as('one')),
        )
        .as('found'),
    )
    .executeTakeFirstOrThrow();
  return row.found === true;
}
