import type { Kysely } from 'kysely';
import { type ItemValues, StaleSchemaError } from '../../../application/ports/item-store.ts';
import { characterCount } from '../../../domain/character-count.ts';
import type { DomainError } from '../../../domain/errors.ts';
import type { Referrers } from '../../../domain/items/still-referenced.ts';
import { invalidQuery } from '../../../domain/query/invalid-query.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { unavailableError } from '../database-unreachable.ts';
import {
  constraintColumns,
  domainColumns,
  generatedAlwaysColumns,
  indexColumns,
  referencedKey,
} from './constraint-columns.ts';
import { WATCH_STALE_STATE, watchStale } from './item-events-watch-sql.ts';
import {
  checkViolation,
  databaseFilledField,
  invalidFieldValue,
  missingReference,
  notNullViolation,
  stillReferenced,
  uniqueViolation,
  valueTooLong,
} from './write-refusals.ts';

/**
 * The SQLSTATE of a server error, or undefined for anything else. pg and PGlite both report it as a
 * five-character `code`; Kysely passes driver errors through untranslated.
 */
export function sqlStateOf(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.length === 5 ? code : undefined;
}

const STALE_SCHEMA_STATES = new Set(['42P01', '42703', '42883', '42804']);

/**
 * Class 22 (data exception: invalid text representation, datetime overflow, numeric out of range, a NUL
 * byte in text…) on a read means a value in the query does not fit its column, which the domain's
 * coercion should have caught. It is still the caller's mistake, so 400 INVALID_QUERY rather than a 500;
 * the message names no SQL. An undefined table or column (42P01, 42703), or an operator or cast that no
 * longer applies to a column whose type changed (42883, 42804), means the catalog is stale. An
 * unreachable database is SERVICE_UNAVAILABLE; a statement timeout, QUERY_TOO_EXPENSIVE `duringRequest`
 * (unavailableError). Anything else is passed on as it is.
 */
export function translateReadError(error: unknown, duringRequest = false): unknown {
  const unavailable = unavailableError(error, duringRequest);
  if (unavailable) return unavailable;
  if (sqlStateOf(error)?.startsWith('22')) {
    return invalidQuery('A value in the query does not fit its field.', { reason: 'INVALID_VALUE' });
  }
  if (STALE_SCHEMA_STATES.has(sqlStateOf(error) ?? '')) return new StaleSchemaError();
  return error;
}

/** What a failed write statement was doing: names the field where the database error does not. */
export type WriteErrorContext = {
  readonly statement: 'insert' | 'update' | 'delete' | 'lock' | 'read';
  readonly collection: CollectionSchema;
  /** The rows inserted, or the one set of values of an update; none for a delete, a lock or a read. */
  readonly values: ReadonlyArray<ItemValues>;
};

/** The fields pg and PGlite both copy from the server's error report. */
type ErrorReport = {
  schema?: string;
  table?: string;
  column?: string;
  constraint?: string;
  dataType?: string;
};

/**
 * A write's database error as the contract error a client gets (docs/api.md §2), never a 500 for bad data:
 * - 23505 unique → RECORD_NOT_UNIQUE naming the first column of the index that refused the row, and
 *   carrying all of them (UniqueClash) for the handler's check that the clash is with a readable row;
 * - 23502 not-null → FAILED_VALIDATION naming the column; 22001 too long → FAILED_VALIDATION naming the
 *   string field whose written value exceeds its length; other class 22 (out of range, invalid text,
 *   datetime overflow) → FAILED_VALIDATION;
 * - 23514 check, 23503 foreign key (23001 for `restrict`) → FAILED_VALIDATION, naming the column when the constraint has one
 *   (for a domain's check, the one written column of that domain);
 *   rows still referring to a deleted or changed one carry the key's tables and columns (StillReferenced)
 *   for the handler's check that the caller may read them;
 * - 428C9 (a value for a `generated always` column) → FAILED_VALIDATION naming the column written;
 * - 42P01/42703 → StaleSchemaError, as on reads;
 * - DG001 (a watched table whose columns changed by hand) → SERVICE_UNAVAILABLE `WATCH_STALE`;
 * - an unreachable database → SERVICE_UNAVAILABLE, before any lookup (each would wait for a connection).
 * Anything else passes unchanged. `db` answers the catalog lookups, so the transaction must have ended.
 * A statement timeout is QUERY_TOO_EXPENSIVE `duringRequest`, as on reads.
 */
export async function translateWriteError(
  error: unknown,
  context: WriteErrorContext | undefined,
  db: Kysely<unknown>,
  schema: string,
  duringRequest = false,
): Promise<unknown> {
  const unavailable = unavailableError(error, duringRequest);
  if (unavailable) return unavailable;
  const state = sqlStateOf(error);
  if (state === undefined) return error;
  const report = error as ErrorReport;
  const where = {
    schema: report.schema ?? schema,
    table: report.table ?? context?.collection.name,
    name: report.constraint,
  };
  switch (state) {
    case '23505': {
      const columns = await lookUp(indexColumns, db, where);
      return uniqueViolation(columns, context?.collection.primaryKey ?? undefined);
    }
    case '23502':
      return notNullViolation(report.column);
    case '22001':
      return valueTooLong(context && tooLongField(context));
    case '23514': {
      // A domain's check reports the domain (its schema and name) and no table.
      if (report.dataType !== undefined && report.table === undefined) {
        return checkViolation(await domainFieldWritten(db, { ...where, schema }, report, context));
      }
      const columns = await lookUp(constraintColumns, db, where);
      return checkViolation(columns.length === 1 ? columns[0] : undefined);
    }
    // PostgreSQL 16 and later (PGlite among them) report an `on delete/update restrict` as 23001.
    case '23001':
    case '23503': {
      const columns = await lookUp(constraintColumns, db, where);
      return (
        missingReferenceOf(context, where.table, columns) ??
        stillReferenced(await referrersOf(db, schema, where, columns))
      );
    }
    case '428C9':
      return databaseFilledField(
        report.column ?? (context && (await generatedFieldWritten(db, where, context))),
      );
    case '42P01':
    case '42703':
      return new StaleSchemaError();
    case WATCH_STALE_STATE:
      return watchStale();
  }
  return state.startsWith('22') ? invalidFieldValue(undefined) : error;
}

type ConstraintLookup = typeof indexColumns;

/** A failing lookup (the table was dropped meanwhile…) must not replace the error being translated. */
async function lookUp(
  lookup: ConstraintLookup,
  db: Kysely<unknown>,
  where: { schema: string; table: string | undefined; name: string | undefined },
): Promise<string[]> {
  if (where.table === undefined || where.name === undefined) return [];
  try {
    return await lookup(db, where.schema, where.table, where.name);
  } catch {
    return [];
  }
}

/**
 * The field holding the domain whose check failed: the one column of that domain the write gave a value;
 * undefined when none or several could have failed.
 */
async function domainFieldWritten(
  db: Kysely<unknown>,
  where: { schema: string; table: string | undefined },
  report: ErrorReport,
  context: WriteErrorContext | undefined,
): Promise<string | undefined> {
  if (where.table === undefined || report.dataType === undefined) return undefined;
  let columns: string[];
  try {
    columns = await domainColumns(
      db,
      { schema: where.schema, name: where.table },
      { schema: report.schema ?? where.schema, name: report.dataType },
    );
  } catch {
    return undefined;
  }
  const written = columns.filter((column) => context?.values.some((row) => Object.hasOwn(row, column)));
  return written.length === 1 ? written[0] : undefined;
}

/** The first field the write gave a value that only the database may fill; undefined when none is found. */
async function generatedFieldWritten(
  db: Kysely<unknown>,
  where: { schema: string; table: string | undefined },
  { collection, values }: WriteErrorContext,
): Promise<string | undefined> {
  if (where.table === undefined) return undefined;
  let generated: string[];
  try {
    generated = await generatedAlwaysColumns(db, where.schema, where.table);
  } catch {
    return undefined;
  }
  return collection.fields.find(
    (field) => generated.includes(field.name) && values.some((row) => Object.hasOwn(row, field.name)),
  )?.name;
}

/** PostgreSQL does not say which value was too long; the schema and the written values do. */
function tooLongField({ collection, values }: WriteErrorContext): string | undefined {
  return collection.fields.find(
    (field) =>
      field.maxLength !== null &&
      values.some((row) => {
        const value = row[field.name];
        return typeof value === 'string' && characterCount(value, field.maxLength!) > field.maxLength!;
      }),
  )?.name;
}

/**
 * The written item's own reference points nowhere when the constraint is on the written table and its
 * columns were written; otherwise (a delete, a re-keying update) rows of the constraint's table still
 * point at it: null then.
 */
function missingReferenceOf(
  context: WriteErrorContext | undefined,
  table: string | undefined,
  columns: ReadonlyArray<string>,
): DomainError | null {
  if (!context || context.statement === 'delete' || table !== context.collection.name) return null;
  const written = columns.every((column) => context.values.some((row) => Object.hasOwn(row, column)));
  return written && columns.length > 0
    ? missingReference(columns.length === 1 ? columns[0] : undefined)
    : null;
}

/** The referring rows' collection and key when both ends are tables of the API's schema; else null. */
async function referrersOf(
  db: Kysely<unknown>,
  schema: string,
  where: { schema: string; table: string | undefined; name: string | undefined },
  columns: ReadonlyArray<string>,
): Promise<Referrers | null> {
  if (where.table === undefined || where.name === undefined || where.schema !== schema) return null;
  let referenced: Awaited<ReturnType<typeof referencedKey>>;
  try {
    referenced = await referencedKey(db, where.schema, where.table, where.name);
  } catch {
    return null;
  }
  if (!referenced || referenced.schema !== schema || referenced.columns.length !== columns.length)
    return null;
  return {
    collection: where.table,
    columns,
    referenced: { collection: referenced.table, columns: referenced.columns },
  };
}
