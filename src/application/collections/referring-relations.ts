import { failedValidation } from '../../domain/errors.ts';
import type { SchemaSnapshot } from '../../domain/schema/collection-schema.ts';

/**
 * Refuses to drop what another collection's relation refers to — `collection`, or only its `field` —
 * naming those relations and how to drop them, where the database would only say that "other objects
 * depend" on it. A relation of the collection to itself goes with it, as the table does.
 */
export function refuseWhileReferred(
  snapshot: SchemaSnapshot,
  target: { collection: string; field?: string },
): void {
  const referring = snapshot.relations.filter(
    (relation) =>
      relation.relatedCollection === target.collection &&
      (target.field === undefined
        ? relation.collection !== target.collection
        : relation.relatedField === target.field),
  );
  if (referring.length === 0) return;
  const names = referring.map((relation) => `${relation.collection}.${relation.field}`);
  const [first] = referring;
  throw failedValidation(
    target.field ?? 'collection',
    `${names.length === 1 ? 'The relation' : 'The relations'} ${names.join(', ')} ${names.length === 1 ? 'refers' : 'refer'} to this ${target.field === undefined ? 'collection' : 'field'}: drop ${names.length === 1 ? 'it' : 'them'} first (DELETE /relations/${first!.collection}/${first!.field}).`,
  );
}
