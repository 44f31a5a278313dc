import { DomainError } from '../errors.ts';

/**
 * A refusal about one row of an import (docs/api.md §13): the same error a `POST /items` of that row would
 * get, its message starting with the 1-based data row and `extensions.row` holding it. Anything that is
 * not a refusal passes unchanged.
 */
export function atRow(error: unknown, row: number): unknown {
  if (!(error instanceof DomainError) || error.extensions.row !== undefined) return error;
  return new DomainError(error.code, `Row ${row}: ${error.message}`, { ...error.extensions, row });
}
