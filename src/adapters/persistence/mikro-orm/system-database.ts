import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { DatabaseWork } from '../../../domain/database-work.ts';
import { DomainError, failedValidation, recordNotUnique } from '../../../domain/errors.ts';
import { systemTablesMissingError, unavailableError } from '../database-unreachable.ts';
import { type ActivityTables, activityTables, insertActivitySql } from '../postgres/activity-recording.ts';
import { boundedByWork } from '../statement-timeout-per-work.ts';
import { keepingAnActiveAdmin } from './active-admin-kept.ts';
import type { SystemTables } from './system-tables.ts';

/** Unique constraint name → the field the domain error names. */
export type UniqueFields = Readonly<Record<string, string>>;

/**
 * The foreign keys to a role. A user or permission is checked to name an existing role before it is
 * written, but the role can be deleted in between (two admins at once): the write then hears what the
 * check would have said.
 */
const ROLE_REFERENCES = new Set(['datagate_users_role_foreign', 'datagate_permissions_role_foreign']);

/**
 * The repositories' way into the system tables: SQL through Kysely, with MikroORM's exception types.
 * Kysely queries bypass MikroORM's error translation, so `run` applies it, turns unique violations into
 * the domain's RECORD_NOT_UNIQUE, an unreachable database into SERVICE_UNAVAILABLE, and a database that lost
 * these tables (emptied or re-created since the migrations ran) into SERVICE_UNAVAILABLE MIGRATION_NEEDED.
 */
export class SystemDatabase {
  private readonly activity: ActivityTables;

  /** `pool`: the server pool under `orm`, whose per-work statement timeouts bound a request's list (`read`). */
  constructor(
    private readonly orm: MikroORM,
    private readonly schema?: string,
    private readonly pool: () => pg.Pool | undefined = () => undefined,
  ) {
    this.activity = activityTables(schema);
  }

  async run<T>(work: (db: Kysely<SystemTables>) => Promise<T>, uniqueFields: UniqueFields = {}): Promise<T> {
    try {
      return await work(this.kysely());
    } catch (error) {
      throw this.translate(error, uniqueFields);
    }
  }

  /**
   * A request's read whose shape the caller chose (a list with its filter and sort), bounded by the request's
   * statement timeout: cut by it, QUERY_TOO_EXPENSIVE.
   */
  async read<T>(
    request: DatabaseWork | undefined,
    read: (db: Kysely<SystemTables>) => Promise<T>,
  ): Promise<T> {
    try {
      return await boundedByWork(this.kysely(), this.pool(), request, read);
    } catch (error) {
      throw this.translate(error, {}, request !== undefined);
    }
  }

  /**
   * A change and its activity entry in one transaction (docs/decisions/0033): `work` answers whether it
   * changed anything, and only then is `activity` inserted, so a change never commits without its entry
   * and a failed one (or a failed entry) leaves neither. Without an entry, `work` runs as `run` does.
   */
  async write(
    work: (db: Kysely<SystemTables>) => Promise<boolean>,
    activity: ActivityEntry | undefined,
    uniqueFields: UniqueFields = {},
  ): Promise<boolean> {
    if (!activity) return this.run(work, uniqueFields);
    return this.run(
      (db) =>
        db.transaction().execute(async (trx) => {
          const changed = await work(trx);
          if (changed) await insertActivitySql(this.activity, [activity]).execute(trx);
          return changed;
        }),
      uniqueFields,
    );
  }

  /** `write` always in one transaction, with its activity entry or without: for work that locks rows. */
  async writeInTransaction(
    work: (db: Kysely<SystemTables>) => Promise<boolean>,
    activity: ActivityEntry | undefined,
  ): Promise<boolean> {
    return this.run((db) =>
      db.transaction().execute(async (trx) => {
        const changed = await work(trx);
        if (changed && activity) await insertActivitySql(this.activity, [activity]).execute(trx);
        return changed;
      }),
    );
  }

  /**
   * `write` for a change of a user or a role, which must not leave the database without an active admin
   * (active-admin-kept.ts): always in a transaction, refused with LAST_ADMIN and rolled back otherwise.
   */
  async writeKeepingAnAdmin(
    work: (db: Kysely<SystemTables>) => Promise<boolean>,
    activity: ActivityEntry | undefined,
    uniqueFields: UniqueFields = {},
  ): Promise<boolean> {
    return this.run(
      (db) =>
        db.transaction().execute((trx) =>
          keepingAnActiveAdmin(trx, async () => {
            const changed = await work(trx);
            if (changed && activity) await insertActivitySql(this.activity, [activity]).execute(trx);
            return changed;
          }),
        ),
      uniqueFields,
    );
  }

  private kysely(): Kysely<SystemTables> {
    // A fork per operation: the global EntityManager is shared by every request and must stay untouched.
    const db = this.orm.em.fork().getKysely<SystemTables>();
    return this.schema ? db.withSchema(this.schema) : db;
  }

  private translate(error: unknown, uniqueFields: UniqueFields, duringRequest = false): unknown {
    const unavailable = unavailableError(error, duringRequest) ?? systemTablesMissingError(error);
    if (unavailable) return unavailable;
    if (error instanceof DomainError || !isDatabaseError(error)) return error;
    const converted = this.orm.em.getPlatform().getExceptionConverter().convertException(error);
    if (converted instanceof UniqueConstraintViolationException) {
      const field = uniqueFields[(error as { constraint?: string }).constraint ?? ''];
      if (field) return recordNotUnique(field);
    }
    if (
      converted instanceof ForeignKeyConstraintViolationException &&
      ROLE_REFERENCES.has((error as { constraint?: string }).constraint ?? '')
    ) {
      return failedValidation('role', 'Role does not exist.');
    }
    return converted;
  }
}

/** pg and PGlite both report server errors with a five-character SQLSTATE in `code`. */
function isDatabaseError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}
