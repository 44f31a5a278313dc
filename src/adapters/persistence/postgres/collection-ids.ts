import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';

const collectionIds = new WeakMap<CollectionSchema, number>();
let lastCollectionId = 0;

/**
 * A number per collection object, for compiled shapes' keys: a refreshed schema snapshot is made of new
 * objects, so whatever was compiled for the old one is never used again.
 */
export function collectionId(collection: CollectionSchema): number {
  let id = collectionIds.get(collection);
  if (id === undefined) {
    id = ++lastCollectionId;
    collectionIds.set(collection, id);
  }
  return id;
}
