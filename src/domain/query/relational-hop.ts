import type { CollectionSchema } from '../schema/collection-schema.ts';
import type { Relation } from '../schema/relation.ts';

/**
 * One step of a query from a collection to a related one. Many-to-one: from the row holding the foreign
 * key (`relation.field`) to the one row it points at. One-to-many: from the referred row to every row of
 * `relation.collection` that points at it.
 */
export type RelationalHop = {
  /** The name the query used: the foreign-key field (many-to-one) or the relation's `oneField` (one-to-many). */
  readonly key: string;
  readonly direction: 'many-to-one' | 'one-to-many';
  readonly relation: Relation;
  /** The collection the hop arrives at, as the same schema snapshot describes it. */
  readonly collection: CollectionSchema;
};
