import { DomainError, failedValidation } from '../../../domain/errors.ts';
import { type Referrers, StillReferenced } from '../../../domain/items/still-referenced.ts';
import { UniqueClash } from '../../../domain/items/unique-clash.ts';

/**
 * The refusals a write meets in the database, worded once for both item stores (PostgreSQL's translated
 * errors and the in-memory twin's own checks), so that a client sees the same answer from either.
 * Messages name at most the field: never a value, a constraint or SQL.
 */

/**
 * RECORD_NOT_UNIQUE naming the index's first column, or `fallback` for an index on expressions; it keeps
 * every column for the handler, which answers it only when the clash is with rows the caller may read.
 */
export const uniqueViolation = (columns: ReadonlyArray<string>, fallback?: string) =>
  new UniqueClash(columns, columns[0] ?? fallback);

export const notNullViolation = (field: string | undefined) =>
  refusal(field, field ? `"${field}" may not be null.` : 'A required value is missing.');

export const valueTooLong = (field: string | undefined) =>
  refusal(field, field ? `The value of "${field}" is too long.` : 'A value is too long for its field.');

/** A value of the wrong type or out of its column's range (SQLSTATE class 22). */
export const invalidFieldValue = (field: string | undefined) =>
  refusal(field, field ? `Invalid value for "${field}".` : 'A value does not fit its field.');

/** A value for an identity `generated always` or a generated column (SQLSTATE 428C9). */
export const databaseFilledField = (field: string | undefined) =>
  refusal(
    field,
    field
      ? `Field "${field}" is filled by the database and cannot be written.`
      : 'A value does not fit its field.',
  );

export const checkViolation = (field: string | undefined) =>
  refusal(field, field ? `The value of "${field}" fails a check.` : 'The item fails a check.');

/** A foreign key of the written item points nowhere. */
export const missingReference = (field: string | undefined) =>
  refusal(
    field,
    field
      ? `The value of "${field}" refers to an item that does not exist.`
      : 'The item refers to an item that does not exist.',
  );

/**
 * Rows of some table (possibly this one) still refer to the deleted or re-keyed item; `referrers` says
 * which, when they are a collection of the API, for the handler's check that the caller may read them.
 */
export const stillReferenced = (referrers: Referrers | null = null) => new StillReferenced(referrers);

/** Columns of types the API does not model (field type `unknown`) can be read as text but never written. */
export const notWritable = (field: string) =>
  failedValidation(field, `"${field}" has a type that cannot be written.`);

/** FAILED_VALIDATION with the field when it is known; some database errors do not say which it was. */
function refusal(field: string | undefined, message: string): DomainError {
  return field === undefined
    ? new DomainError('FAILED_VALIDATION', message)
    : failedValidation(field, message);
}
