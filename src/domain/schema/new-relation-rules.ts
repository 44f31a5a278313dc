import { DomainError, failedValidation, recordNotUnique } from '../errors.ts';
import {
  type CollectionSchema,
  fieldOf,
  isPresentedSystemCollection,
  isSystemCollection,
  type SchemaSnapshot,
} from './collection-schema.ts';
import { NAME } from './new-field-rules.ts';
import { constraintNameOf, type NewRelation } from './new-relation.ts';
import type { UnnamedRelation } from './one-field-names.ts';
import type { Relation } from './relation.ts';
import { manyToOneOf, oneToManyOf } from './relations-of.ts';

/** Types a foreign key can join on: scalars with an equality the two ends share. */
const JOINABLE = new Set([
  'uuid',
  'string',
  'text',
  'integer',
  'bigInteger',
  'decimal',
  'date',
  'timestamp',
  'dateTime',
  'time',
]);

/**
 * Checks a new relation against the schema and completes it, so that the memory and PostgreSQL editors
 * refuse the same requests with the same errors. Stricter than PostgreSQL on one point: both ends must be
 * of the same field type (PostgreSQL would join an integer to a bigint), so that a relation never compares
 * values of two types.
 */
export function checkNewRelation(relation: NewRelation, snapshot: SchemaSnapshot): UnnamedRelation {
  const many = collectionOrThrow(snapshot, relation.collection, false);
  // An item may point at a file (docs/api.md §15); the files' table itself gets no new column.
  const one = collectionOrThrow(snapshot, relation.relatedCollection, true);
  if (many.readOnly) throw failedValidation('collection', 'A view cannot hold a foreign key.');
  if (one.readOnly) throw failedValidation('related_collection', 'A foreign key cannot refer to a view.');
  const field = fieldOf(many, relation.field);
  if (!field) throw failedValidation('field', `Collection "${many.name}" has no field "${relation.field}".`);
  if (manyToOneOf(snapshot, many.name, field.name)) throw recordNotUnique('field');
  const relatedName = relation.relatedField ?? one.primaryKey;
  if (relatedName === null) {
    throw failedValidation('related_field', `Collection "${one.name}" has no primary key to refer to.`);
  }
  const related = fieldOf(one, relatedName);
  if (!related)
    throw failedValidation('related_field', `Collection "${one.name}" has no field "${relatedName}".`);
  if (!related.isUnique) {
    throw failedValidation('related_field', `Field "${relatedName}" is neither the primary key nor unique.`);
  }
  if (!JOINABLE.has(field.type) || field.type !== related.type) {
    throw failedValidation(
      'field',
      `Field "${field.name}" (${field.type}) cannot refer to "${relatedName}" (${related.type}).`,
    );
  }
  if (relation.oneField !== undefined) checkOneField(relation.oneField, one, snapshot);
  return {
    constraint: constraintNameOf(many.name, field.name),
    collection: many.name,
    field: field.name,
    relatedCollection: one.name,
    relatedField: related.name,
    onDelete: relation.onDelete ?? 'no action',
    onUpdate: relation.onUpdate ?? 'no action',
    ...(relation.oneField === undefined ? {} : { chosenOneField: relation.oneField }),
  };
}

/**
 * A one-to-many name chosen for a relation to `one`: named like a field, and taken by no field of `one` and
 * by no other relation's one-to-many name there (`self`, when renaming, may keep its own).
 */
export function checkOneField(
  name: string,
  one: CollectionSchema,
  snapshot: SchemaSnapshot,
  self?: Relation,
): void {
  if (!NAME.test(name)) {
    throw failedValidation(
      'one_field',
      'A field name is 1–63 letters, digits or "_", not starting with a digit.',
    );
  }
  if (fieldOf(one, name)) {
    throw failedValidation('one_field', `Collection "${one.name}" has a field "${name}".`);
  }
  const other = oneToManyOf(snapshot, one.name, name);
  if (other && other !== self) {
    throw failedValidation('one_field', `Collection "${one.name}" already reads a relation as "${name}".`);
  }
}

function collectionOrThrow(
  snapshot: SchemaSnapshot,
  name: string,
  presentedSystemToo: boolean,
): CollectionSchema {
  const reachable = !isSystemCollection(name) || (presentedSystemToo && isPresentedSystemCollection(name));
  const collection = reachable ? snapshot.collections.get(name) : undefined;
  if (!collection) throw new DomainError('COLLECTION_NOT_FOUND', `Collection "${name}" does not exist.`);
  return collection;
}
