import { DomainError } from '../errors.ts';

/**
 * RECORD_NOT_UNIQUE as a store reports it, carrying every column of the index that refused the row (the
 * answer names only the first). The write handler needs them all to tell whether the clash is with a row
 * the caller may read (write-clash.ts); they never reach the client.
 */
export class UniqueClash extends DomainError {
  constructor(
    /** The index's columns in key order; empty for an index on expressions, which names no column. */
    readonly columns: ReadonlyArray<string>,
    field: string | undefined,
  ) {
    super(
      'RECORD_NOT_UNIQUE',
      field === undefined ? 'A value has to be unique.' : `Value of "${field}" has to be unique.`,
      field === undefined ? {} : { field },
    );
  }
}
