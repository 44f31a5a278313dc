import type { CollectionSchema, SchemaSnapshot } from '../../domain/schema/collection-schema.ts';
import type { CreatableFieldType } from '../../domain/schema/field-type.ts';

/** The collections as the database has them. Served from memory; `refresh()` re-reads the database. */
export interface SchemaCatalog {
  /** The current snapshot; cheap (no I/O) after the first `refresh()`. */
  current(): SchemaSnapshot;
  refresh(): Promise<SchemaSnapshot>;
}

export type NewField = {
  field: string;
  type: CreatableFieldType;
  isPrimaryKey?: boolean;
  isNullable?: boolean;
  isUnique?: boolean;
  /** A literal default (string, number, boolean), or null for none. */
  defaultValue?: string | number | boolean | null;
  /** For `string`: varchar length (255 when not given). */
  maxLength?: number;
};

/** Changes the database schema (admin only). Each call refreshes the catalog when it succeeds. */
export interface SchemaEditor {
  /** Throws DomainError RECORD_NOT_UNIQUE (field `collection`) when the table exists. */
  createCollection(name: string, fields: ReadonlyArray<NewField>): Promise<CollectionSchema>;
  dropCollection(name: string): Promise<void>;
  addField(collection: string, field: NewField): Promise<CollectionSchema>;
  dropField(collection: string, field: string): Promise<CollectionSchema>;
}
