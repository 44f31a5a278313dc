import type {
  AccountabilityMode,
  CollectionSchema,
  SchemaSnapshot,
} from '../../domain/schema/collection-schema.ts';
import type { NewField } from '../../domain/schema/new-field.ts';
import type { NewRelation } from '../../domain/schema/new-relation.ts';
import type { ReferentialAction, Relation } from '../../domain/schema/relation.ts';
import type { ActivityEntry } from './activity-log.ts';

export type { NewField, NewRelation };

/**
 * What may change in a relation; an absent member stays as it is. `oneField`: the one-to-many name chosen
 * for it, or null for the default name (one-field-names.ts).
 */
export type RelationChange = {
  readonly onDelete?: ReferentialAction;
  readonly onUpdate?: ReferentialAction;
  readonly oneField?: string | null;
};

/** The collections as the database has them. Served from memory; `refresh()` re-reads the database. */
export interface SchemaCatalog {
  /** The current snapshot; cheap (no I/O) after the first `refresh()`. */
  current(): SchemaSnapshot;
  refresh(): Promise<SchemaSnapshot>;
}

/**
 * Changes the database schema (admin only). Each call refreshes the catalog when it succeeds. `activity`,
 * when given, is recorded in the change's own transaction (docs/decisions/0033): both happen or neither.
 */
export interface SchemaEditor {
  /**
   * Throws DomainError RECORD_NOT_UNIQUE (field `collection`) when the table exists. `accountability` is set
   * with the table, in the same transaction (docs/api.md §14; `all` when absent).
   */
  createCollection(
    name: string,
    fields: ReadonlyArray<NewField>,
    activity?: ActivityEntry,
    accountability?: AccountabilityMode,
  ): Promise<CollectionSchema>;
  dropCollection(name: string, activity?: ActivityEntry): Promise<void>;
  addField(collection: string, field: NewField, activity?: ActivityEntry): Promise<CollectionSchema>;
  dropField(collection: string, field: string, activity?: ActivityEntry): Promise<CollectionSchema>;
  /** Sets what writes to the collection record (docs/api.md §14); COLLECTION_NOT_FOUND when it is missing. */
  setAccountability(
    collection: string,
    mode: AccountabilityMode,
    activity?: ActivityEntry,
  ): Promise<CollectionSchema>;
  /**
   * Declares a foreign key (docs/api.md §7a). Throws DomainError COLLECTION_NOT_FOUND for a missing
   * collection, FAILED_VALIDATION naming the field when it is no field, already a relation, of another
   * type than the field referred to, or when existing rows point nowhere (`one_field` for a one-to-many
   * name that is malformed or taken).
   */
  createRelation(relation: NewRelation): Promise<Relation>;
  /** Drops the foreign key of `collection.field`; NOT_FOUND when there is none. */
  dropRelation(collection: string, field: string): Promise<void>;
  /**
   * Changes what the foreign key of `collection.field` does on delete and update (the constraint is made
   * again, under its name, in one transaction) or its one-to-many name; NOT_FOUND when there is none,
   * FAILED_VALIDATION naming `one_field` for a name that is malformed or taken.
   */
  updateRelation(collection: string, field: string, change: RelationChange): Promise<Relation>;
}
