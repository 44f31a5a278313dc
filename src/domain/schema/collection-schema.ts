import type { FieldType } from './field-type.ts';
import type { Relation } from './relation.ts';

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
  /** An enum's labels, in declaration order: the only values the column takes. Absent on other columns. */
  readonly choices?: ReadonlyArray<string>;
  /** For `array`: what one element is. Absent on other columns. */
  readonly element?: ElementSchema;
};

/** An array's element: a scalar type (never `array`, `json` or `unknown`), its SQL type, its limits. */
export type ElementSchema = {
  readonly type: FieldType;
  /** The element's SQL type as PostgreSQL prints it (`integer`, `numeric(10,2)`, `mood`). */
  readonly dbType: string;
  readonly maxLength: number | null;
  readonly choices?: ReadonlyArray<string>;
};

export type CollectionSchema = {
  readonly name: string;
  /** Single-column primary key; null for tables without one (listable, not addressable by id). */
  readonly primaryKey: string | null;
  /** In column order. */
  readonly fields: ReadonlyArray<FieldSchema>;
  /** A view (or materialized view): readable like a table, never written (docs/api.md §5). */
  readonly readOnly?: boolean;
  /** What writes to it record (docs/api.md §14, Directus's `meta.accountability`); absent = `all`. */
  readonly accountability?: AccountabilityMode;
};

/** Activity and revisions, activity only, or nothing. */
export type AccountabilityMode = 'all' | 'activity' | null;

export const ACCOUNTABILITY_MODES: ReadonlyArray<AccountabilityMode> = ['all', 'activity', null];

/** The collection's mode, `all` unless set. */
export function accountabilityOf(collection: CollectionSchema): AccountabilityMode {
  return collection.accountability === undefined ? 'all' : collection.accountability;
}

/**
 * The user tables of the configured database schema, as introspected; of the system tables, only those
 * isPresentedSystemCollection names appear here.
 */
export type SchemaSnapshot = {
  readonly collections: ReadonlyMap<string, CollectionSchema>;
  /** The single-column foreign keys between these collections (relations-of.ts for lookups). */
  readonly relations: ReadonlyArray<Relation>;
};

export const SYSTEM_TABLE_PREFIX = 'datagate_';

export function isSystemCollection(name: string): boolean {
  return name.toLowerCase().startsWith(SYSTEM_TABLE_PREFIX);
}

/**
 * Files (docs/api.md §15): a system table the catalog presents among the collections, so that the role
 * rules, the query language, relations and the history treat its rows as items. It stays a system
 * collection: `/items`, `/collections` and `/fields` refuse it; `/files` and `/assets` reach it.
 */
export const FILES_COLLECTION = 'datagate_files';

/** The system tables the catalog presents as collections (docs/decisions/0037). */
export function isPresentedSystemCollection(name: string): boolean {
  return name === FILES_COLLECTION;
}

export function fieldOf(collection: CollectionSchema, name: string): FieldSchema | undefined {
  return collection.fields.find((field) => field.name === name);
}

/**
 * One element of an array field as a field of its own, so that the scalar rules (coercion, formatting,
 * comparison) apply to it unchanged. Elements may be null: PostgreSQL arrays hold nulls.
 */
export function elementField(field: FieldSchema): FieldSchema {
  if (!field.element) throw new Error(`Field "${field.name}" is not an array`);
  return {
    name: field.name,
    nullable: true,
    defaultValue: null,
    isPrimaryKey: false,
    isUnique: false,
    hasDefault: false,
    ...field.element,
  };
}
