import { DomainError } from '../errors.ts';

/** Which rows refused a delete or a re-keying update by still referring to the written collection's rows. */
export type Referrers = {
  /** The referring collection (possibly the written one itself). */
  readonly collection: string;
  /** Its columns that refer, in the constraint's order. */
  readonly columns: ReadonlyArray<string>;
  /** The collection they refer to, and its columns each of `columns` matches, in the same order. */
  readonly referenced: { readonly collection: string; readonly columns: ReadonlyArray<string> };
};

/**
 * FAILED_VALIDATION "Other items still refer to this item.", as a store reports it: with the foreign key
 * behind it when it is between two collections of the API (null otherwise). The handler needs it to tell
 * whether the caller may read every referring row (write-references.ts); it never reaches the client.
 */
export class StillReferenced extends DomainError {
  constructor(readonly referrers: Referrers | null) {
    super('FAILED_VALIDATION', 'Other items still refer to this item.');
  }
}
