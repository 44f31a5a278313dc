/** What PostgreSQL does to the referring rows when the referred row is deleted or its key changes. */
export type ReferentialAction = 'no action' | 'restrict' | 'cascade' | 'set null' | 'set default';

/**
 * A single-column foreign key, as the database declares it: the constraint is the relation, with no second
 * bookkeeping table to drift from it (PostgREST's way). Each row of `collection` points, by its `field`, at
 * the row of `relatedCollection` whose `relatedField` holds the same value. Composite foreign keys are
 * not relations of the API.
 */
export type Relation = {
  /** The constraint's name (unique per table). */
  readonly constraint: string;
  /** The many side: the table holding the foreign key, and its column. */
  readonly collection: string;
  readonly field: string;
  /** The one side, and the column referred to (its primary key or a unique column). */
  readonly relatedCollection: string;
  readonly relatedField: string;
  /**
   * The name under which `relatedCollection` reads the rows of `collection` that point at it (one-to-many),
   * or null when it has none (it would clash with a column or another relation's name).
   */
  readonly oneField: string | null;
  readonly onDelete: ReferentialAction;
  readonly onUpdate: ReferentialAction;
};
