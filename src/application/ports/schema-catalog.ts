import type { CollectionSchema, SchemaSnapshot } from '../../domain/schema/collection-schema.ts';
import type { NewField } from '../../domain/schema/new-field.ts';

export type { NewField };

/** The collections as the database has them. Served from memory; `refresh()` re-reads the database. */
export interface SchemaCatalog {
  /** The current snapshot; cheap (no I/O) after the first `refresh()`. */
  current(): SchemaSnapshot;
  refresh(): Promise<SchemaSnapshot>;
}

/** Changes the database schema (admin only). Each call refreshes the catalog when it succeeds. */
export interface SchemaEditor {
  /** Throws DomainError RECORD_NOT_UNIQUE (field `collection`) when the table exists. */
  createCollection(name: string, fields: ReadonlyArray<NewField>): Promise<CollectionSchema>;
  dropCollection(name: string): Promise<void>;
  addField(collection: string, field: NewField): Promise<CollectionSchema>;
  dropField(collection: string, field: string): Promise<CollectionSchema>;
}
