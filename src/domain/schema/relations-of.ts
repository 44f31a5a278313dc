import type { SchemaSnapshot } from './collection-schema.ts';
import type { Relation } from './relation.ts';

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
