import type { FieldType } from './field-type.ts';

export type FieldSchema = {
  readonly name: string;
  readonly type: FieldType;
  /** The column's SQL type as PostgreSQL prints it (`character varying(255)`, `numeric(10,2)`). */
  readonly dbType: string;
  readonly nullable: boolean;
  /** The column's default expression as PostgreSQL prints it, or null. */
  readonly defaultValue: string | null;
  readonly isPrimaryKey: boolean;
  readonly isUnique: boolean;
  /** Filled by the database (identity, serial, a default); a write may omit it even when not nullable. */
  readonly hasDefault: boolean;
  /** For `string` (varchar(n)); null when unbounded. */
  readonly maxLength: number | null;
};

export type CollectionSchema = {
  readonly name: string;
  /** Single-column primary key; null for tables without one (listable, not addressable by id). */
  readonly primaryKey: string | null;
  /** In column order. */
  readonly fields: ReadonlyArray<FieldSchema>;
};

/** The user tables of the configured database schema, as introspected; system tables never appear here. */
export type SchemaSnapshot = {
  readonly collections: ReadonlyMap<string, CollectionSchema>;
};

export const SYSTEM_TABLE_PREFIX = 'datagate_';

export function isSystemCollection(name: string): boolean {
  return name.toLowerCase().startsWith(SYSTEM_TABLE_PREFIX);
}

export function fieldOf(collection: CollectionSchema, name: string): FieldSchema | undefined {
  return collection.fields.find((field) => field.name === name);
}
