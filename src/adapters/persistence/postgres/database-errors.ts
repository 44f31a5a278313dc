import { StaleSchemaError } from '../../../application/ports/item-store.ts';
import { invalidQuery } from '../../../domain/query/invalid-query.ts';

/**
 * The SQLSTATE of a server error, or undefined for anything else. pg and PGlite both report it as a
 * five-character `code`; Kysely passes driver errors through untranslated.
 */
export function sqlStateOf(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.length === 5 ? code : undefined;
}

/**
 * Class 22 (data exception: invalid text representation, datetime overflow, numeric out of range, a NUL
 * byte in text…) on a read means a value in the query does not fit its column, which the domain's
 * coercion should have caught. It is still the caller's mistake, so 400 INVALID_QUERY rather than a 500;
 * the message names no SQL. An undefined table or column (42P01, 42703) means the catalog is stale.
 * Anything else is passed on as it is.
 */
export function translateReadError(error: unknown): unknown {
  if (sqlStateOf(error)?.startsWith('22')) {
    return invalidQuery('A value in the query does not fit its field.', { reason: 'INVALID_VALUE' });
  }
  if (sqlStateOf(error) === '42P01' || sqlStateOf(error) === '42703') return new StaleSchemaError();
  return error;
}
