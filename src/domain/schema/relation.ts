import type { SchemaSnapshot } from './collection-schema.ts';

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

type RelationIndex = {
  readonly manyToOne: ReadonlyMap<string, ReadonlyMap<string, Relation>>;
  readonly oneToMany: ReadonlyMap<string, ReadonlyMap<string, Relation>>;
};

const indexes = new WeakMap<SchemaSnapshot, RelationIndex>();

/** A snapshot is immutable, so its relations are indexed once, when first asked. */
function indexOf(snapshot: SchemaSnapshot): RelationIndex {
  let index = indexes.get(snapshot);
  if (!index) {
    const manyToOne = new Map<string, Map<string, Relation>>();
    const oneToMany = new Map<string, Map<string, Relation>>();
    for (const relation of snapshot.relations) {
      put(manyToOne, relation.collection, relation.field, relation);
      if (relation.oneField !== null) put(oneToMany, relation.relatedCollection, relation.oneField, relation);
    }
    index = { manyToOne, oneToMany };
    indexes.set(snapshot, index);
  }
  return index;
}

function put(map: Map<string, Map<string, Relation>>, collection: string, name: string, relation: Relation) {
  let byName = map.get(collection);
  if (!byName) {
    byName = new Map();
    map.set(collection, byName);
  }
  byName.set(name, relation);
}

const NONE: ReadonlyMap<string, Relation> = new Map();

/** The relation whose foreign key is `collection.field`, if that field is one. */
export function manyToOneOf(
  snapshot: SchemaSnapshot,
  collection: string,
  field: string,
): Relation | undefined {
  return indexOf(snapshot).manyToOne.get(collection)?.get(field);
}

/** The relation `collection` reads as the one-to-many `alias`, if it has one by that name. */
export function oneToManyOf(
  snapshot: SchemaSnapshot,
  collection: string,
  alias: string,
): Relation | undefined {
  return indexOf(snapshot).oneToMany.get(collection)?.get(alias);
}

/** The foreign keys of `collection`, by field. */
export function manyToOnesOf(snapshot: SchemaSnapshot, collection: string): ReadonlyMap<string, Relation> {
  return indexOf(snapshot).manyToOne.get(collection) ?? NONE;
}

/** The one-to-many relations `collection` reads, by alias. */
export function oneToManysOf(snapshot: SchemaSnapshot, collection: string): ReadonlyMap<string, Relation> {
  return indexOf(snapshot).oneToMany.get(collection) ?? NONE;
}
