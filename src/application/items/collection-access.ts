import type { Accountability } from '../../domain/accountability.ts';
import { DomainError, readOnlyCollection } from '../../domain/errors.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { isSystemCollection } from '../../domain/schema/collection-schema.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';

/**
 * The system collections a handler may name besides the user's tables: none for `/items`, the files'
 * for the item handlers `/files` runs (docs/api.md §15).
 */
export type SystemReach = ReadonlySet<string>;

export const USER_COLLECTIONS_ONLY: SystemReach = new Set();

/**
 * The collection a request names, as the catalog knows it; system tables never resolve, except those in
 * `reach` that the catalog presents. Non-admins get the same refusal whether or not it exists, so
 * existence does not leak; only admins learn it is missing.
 */
export function collectionFor(
  catalog: SchemaCatalog,
  caller: Accountability,
  name: string,
  reach: SystemReach = USER_COLLECTIONS_ONLY,
): CollectionSchema {
  const reachable = !isSystemCollection(name) || reach.has(name);
  const collection = reachable ? catalog.current().collections.get(name) : undefined;
  if (collection) return collection;
  if (caller.admin) throw new DomainError('COLLECTION_NOT_FOUND', `Collection "${name}" does not exist.`);
  throw refusal(caller);
}

/**
 * Refuses any change to a view (docs/api.md §5): rows, fields or the collection itself. Called once the
 * caller's right to the action is established, so that the answer tells nothing to a caller without it.
 */
export function requireWritable(collection: CollectionSchema): void {
  if (collection.readOnly) throw readOnlyCollection(collection.name);
}
