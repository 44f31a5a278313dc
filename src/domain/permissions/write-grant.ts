import type { BoundFilterNode, FilterNode, ScalarValue } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';

export type WriteAction = 'create' | 'update' | 'delete';

/** Resolves `$CURRENT_USER`, `$CURRENT_ROLE` and `$NOW` for the current request (bindDynamicValues). */
export type BindWriteFilter = (node: FilterNode) => BoundFilterNode;

/**
 * One create, update or delete permission as the write checks need it (docs/api.md §6), for one caller and
 * one collection: filters parsed and bound, presets coerced. Several grants combine with OR.
 */
export type WriteGrant = {
  /** The collection the filters were parsed against; they are evaluated with its field types. */
  readonly collection: CollectionSchema;
  /** Rows the permission covers: the new item on create, the existing row on update and delete. null = all. */
  readonly rows: BoundFilterNode | null;
  /** Fields a payload may set; never empty. Always 'all' on delete, which sets no field. */
  readonly fields: ReadonlySet<string> | 'all';
  /** A filter the written item must satisfy (FAILED_VALIDATION otherwise); null = none. */
  readonly validation: BoundFilterNode | null;
  /** Values filled in before the payload, canonical; dynamic values already resolved. */
  readonly presets: Readonly<Record<string, ScalarValue | null>>;
};

/** What an admin may write: everything, unchecked (docs/api.md §6 `admin_access`). */
export type WriteGrants = ReadonlyArray<WriteGrant> | 'all';
