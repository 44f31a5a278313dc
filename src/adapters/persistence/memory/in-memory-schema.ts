import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type {
  NewRelation,
  RelationChange,
  SchemaCatalog,
  SchemaEditor,
} from '../../../application/ports/schema-catalog.ts';
import {
  collectionExists,
  DomainError,
  failedValidation,
  notFound,
  readOnlyCollection,
  recordNotUnique,
} from '../../../domain/errors.ts';
import { compareCodePoints } from '../../../domain/query/code-point-order.ts';
import { coerceValue } from '../../../domain/query/coerce-value.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import type {
  AccountabilityMode,
  CollectionSchema,
  FieldSchema,
  SchemaSnapshot,
} from '../../../domain/schema/collection-schema.ts';
import { isSystemCollection } from '../../../domain/schema/collection-schema.ts';
import { countsByItself, type NewField } from '../../../domain/schema/new-field.ts';
import {
  checkCollectionName,
  checkNewField,
  checkNewFields,
} from '../../../domain/schema/new-field-rules.ts';
import { checkNewRelation, checkOneField } from '../../../domain/schema/new-relation-rules.ts';
import { type UnnamedRelation, withOneFields } from '../../../domain/schema/one-field-names.ts';
import type { Relation } from '../../../domain/schema/relation.ts';
import { manyToOneOf } from '../../../domain/schema/relations-of.ts';
import { columnTypeOf } from '../postgres/column-types.ts';

/**
 * A row as the database holds it: canonical values (filter.ts, ScalarValue) or null, by field name.
 * Created with a null prototype, so that a column named `__proto__` is just a column.
 */
export type StoredRow = Record<string, ScalarValue | null>;

/** One table: its shape, its rows, the canonical defaults of its columns, and its identity counter. */
export type MemoryTable = {
  schema: CollectionSchema;
  readonly rows: StoredRow[];
  readonly defaults: Map<string, ScalarValue>;
  nextIdentity: number;
};

/**
 * The database schema and the rows of its user tables, in memory: SchemaCatalog and SchemaEditor for
 * tests and the in-memory composition. It behaves like the PostgreSQL editor — same name and type rules
 * (shared with it), same column types as introspection prints them, same errors — so that a test passing
 * here means the same thing there. InMemoryItemStore reads the rows kept here, so dropping a table or a
 * column drops its data.
 *
 * Column types (as `format_type` prints them): uuid `uuid`, string `character varying(n)` (255 by
 * default), text `text`, integer `integer`, bigInteger `bigint`, float `double precision`, decimal
 * `numeric`, boolean `boolean`, timestamp `timestamp without time zone`, dateTime `timestamp with time
 * zone`, date `date`, time `time without time zone`, json `jsonb`. An integer or bigInteger primary key
 * without a default is an identity column (hasDefault, no default expression); a uuid one has no default.
 */
export class InMemorySchema implements SchemaCatalog, SchemaEditor {
  private readonly tables = new Map<string, MemoryTable>();
  private snapshot: SchemaSnapshot = { collections: new Map(), relations: [] };
  /** The foreign keys, in creation order; `oneField` is named afresh on every change, as introspection does. */
  private relations: UnnamedRelation[] = [];

  /** `record`: where the changes' activity entries go (the backend's activity log). */
  constructor(private readonly record: (entry: ActivityEntry) => void = () => {}) {}

  current(): SchemaSnapshot {
    return this.snapshot;
  }

  async refresh(): Promise<SchemaSnapshot> {
    return this.snapshot;
  }

  async createCollection(
    name: string,
    fields: ReadonlyArray<NewField>,
    activity?: ActivityEntry,
    accountability: AccountabilityMode = 'all',
  ): Promise<CollectionSchema> {
    checkCollectionName(name);
    checkNewFields(fields);
    if (this.tables.has(name)) throw collectionExists(name);
    const defaults = new Map<string, ScalarValue>();
    for (const field of fields) {
      const value = defaultOf(field);
      if (value !== null) defaults.set(field.field, value);
    }
    const shape = collectionOf(name, fields.map(fieldSchemaOf));
    const schema = accountability === 'all' ? shape : { ...shape, accountability };
    this.tables.set(name, { schema, rows: [], defaults, nextIdentity: 1 });
    this.publish(activity);
    return schema;
  }

  async dropCollection(name: string, activity?: ActivityEntry): Promise<void> {
    this.existing(name);
    if (
      this.relations.some((relation) => relation.relatedCollection === name && relation.collection !== name)
    ) {
      throw failedValidation('collection', 'Other database objects depend on this collection.');
    }
    this.relations = this.relations.filter((relation) => relation.collection !== name);
    this.tables.delete(name);
    this.publish(activity);
  }

  async addField(collection: string, field: NewField, activity?: ActivityEntry): Promise<CollectionSchema> {
    checkNewField(field);
    const table = this.existing(collection);
    if (table.schema.fields.some((existing) => existing.name === field.field)) throw recordNotUnique('field');
    if (field.isPrimaryKey && table.schema.primaryKey !== null) {
      throw failedValidation(field.field, 'The collection already has a primary key.');
    }
    const value = defaultOf(field);
    const schema = fieldSchemaOf(field);
    const identity = schema.hasDefault && value === null;
    if (!schema.nullable && value === null && !identity && table.rows.length > 0) {
      throw failedValidation(field.field, 'Existing items would have no value for this field.');
    }
    if (schema.isUnique && value !== null && table.rows.length > 1) throw recordNotUnique(field.field);
    // Existing rows get the default, or count up for an identity column, as PostgreSQL fills them.
    for (const row of table.rows) row[field.field] = identity ? table.nextIdentity++ : value;
    if (value !== null) table.defaults.set(field.field, value);
    table.schema = withSettingsOf(table.schema, collectionOf(collection, [...table.schema.fields, schema]));
    this.publish(activity);
    return table.schema;
  }

  async dropField(collection: string, field: string, activity?: ActivityEntry): Promise<CollectionSchema> {
    const table = this.existing(collection);
    const target = table.schema.fields.find((candidate) => candidate.name === field);
    if (!target) throw notFound('Field');
    if (target.isPrimaryKey) throw failedValidation(field, 'The primary key field cannot be dropped.');
    if (
      this.relations.some(
        (relation) => relation.relatedCollection === collection && relation.relatedField === field,
      )
    ) {
      throw failedValidation(field, 'Other database objects depend on this field.');
    }
    this.relations = this.relations.filter(
      (relation) => relation.collection !== collection || relation.field !== field,
    );
    for (const row of table.rows) delete row[field];
    table.defaults.delete(field);
    table.schema = withSettingsOf(
      table.schema,
      collectionOf(
        collection,
        table.schema.fields.filter((candidate) => candidate !== target),
      ),
    );
    this.publish(activity);
    return table.schema;
  }

  async setAccountability(
    collection: string,
    mode: AccountabilityMode,
    activity?: ActivityEntry,
  ): Promise<CollectionSchema> {
    const table = this.existing(collection);
    if (table.schema.readOnly) throw readOnlyCollection(collection);
    const { accountability: _previous, ...shape } = table.schema;
    table.schema = mode === 'all' ? shape : { ...shape, accountability: mode };
    this.publish(activity);
    return table.schema;
  }

  async createRelation(relation: NewRelation): Promise<Relation> {
    const checked = checkNewRelation(relation, this.snapshot);
    const referred = new Set(
      this.tables.get(checked.relatedCollection)!.rows.map((row) => row[checked.relatedField]),
    );
    const dangling = this.tables
      .get(checked.collection)!
      .rows.some((row) => row[checked.field] != null && !referred.has(row[checked.field]!));
    if (dangling) throw failedValidation(checked.field, 'Existing items refer to items that do not exist.');
    this.relations.push(checked);
    this.publish();
    return manyToOneOf(this.snapshot, checked.collection, checked.field)!;
  }

  async updateRelation(collection: string, field: string, change: RelationChange): Promise<Relation> {
    const current = manyToOneOf(this.snapshot, collection, field);
    if (!current) throw notFound('Relation');
    if (typeof change.oneField === 'string') {
      checkOneField(
        change.oneField,
        this.snapshot.collections.get(current.relatedCollection)!,
        this.snapshot,
        current,
      );
    }
    this.relations = this.relations.map((relation) =>
      relation.collection === collection && relation.field === field
        ? {
            ...relation,
            onDelete: change.onDelete ?? relation.onDelete,
            onUpdate: change.onUpdate ?? relation.onUpdate,
            chosenOneField: change.oneField === undefined ? relation.chosenOneField : change.oneField,
          }
        : relation,
    );
    this.publish();
    return manyToOneOf(this.snapshot, collection, field)!;
  }

  async dropRelation(collection: string, field: string): Promise<void> {
    if (!manyToOneOf(this.snapshot, collection, field)) throw notFound('Relation');
    this.relations = this.relations.filter(
      (relation) => relation.collection !== collection || relation.field !== field,
    );
    this.publish();
  }

  /**
   * Adds a table as introspection would find it — made outside the API, possibly with types the API
   * cannot create (smallint, real, arrays). For tests and seeding.
   */
  registerCollection(schema: CollectionSchema): void {
    if (this.tables.has(schema.name)) throw recordNotUnique('collection');
    const defaults = new Map<string, ScalarValue>();
    for (const field of schema.fields) {
      const value = literalDefault(field);
      if (value !== null) defaults.set(field.name, value);
    }
    this.tables.set(schema.name, { schema, rows: [], defaults, nextIdentity: 1 });
    this.publish();
  }

  /** The live table, for InMemoryItemStore; undefined when it does not exist. */
  table(name: string): MemoryTable | undefined {
    return this.tables.get(name);
  }

  private existing(name: string): MemoryTable {
    const table = isSystemCollection(name) ? undefined : this.tables.get(name);
    if (!table) throw new DomainError('COLLECTION_NOT_FOUND', `Collection "${name}" does not exist.`);
    return table;
  }

  /** A new snapshot per change (readers may hold the old one), in name order like introspection's. */
  /** The change is made: the new snapshot is served, and the change's entry recorded with it. */
  private publish(activity?: ActivityEntry) {
    const names = [...this.tables.keys()].sort(compareCodePoints);
    const collections = new Map(names.map((name) => [name, this.tables.get(name)!.schema]));
    this.snapshot = { collections, relations: withOneFields(this.relations, collections) };
    if (activity) this.record(activity);
  }
}

/** A new shape of a table keeps its settings, as a table's comment survives ALTER TABLE. */
function withSettingsOf(previous: CollectionSchema, next: CollectionSchema): CollectionSchema {
  return previous.accountability === undefined ? next : { ...next, accountability: previous.accountability };
}

function collectionOf(name: string, fields: ReadonlyArray<FieldSchema>): CollectionSchema {
  return { name, primaryKey: fields.find((field) => field.isPrimaryKey)?.name ?? null, fields };
}

function fieldSchemaOf(field: NewField): FieldSchema {
  const dbType = columnTypeOf(field.type, field.maxLength);
  const hasDefault = field.defaultValue !== undefined && field.defaultValue !== null;
  const identity = countsByItself(field);
  return {
    name: field.field,
    type: field.type,
    dbType,
    nullable: !field.isPrimaryKey && field.isNullable !== false,
    defaultValue: hasDefault ? defaultExpression(dbType, defaultOf(field)!) : null,
    isPrimaryKey: !!field.isPrimaryKey,
    isUnique: !!field.isPrimaryKey || !!field.isUnique,
    hasDefault: hasDefault || identity,
    maxLength: field.type === 'string' ? (field.maxLength ?? 255) : null,
  };
}

/** The default as the column would hold it; a text that is no value of the type fails like PostgreSQL's cast. */
function defaultOf(field: NewField): ScalarValue | null {
  if (field.defaultValue === undefined || field.defaultValue === null) return null;
  const schema = { name: field.field, type: field.type, dbType: columnTypeOf(field.type, field.maxLength) };
  // Defaults reach PostgreSQL as text (`default '…'::type`), so they are read as text here too; for
  // jsonb that text is JSON.
  const text = String(field.defaultValue);
  try {
    return coerceValue({ ...schema, ...NO_CONSTRAINTS }, field.type === 'json' ? JSON.parse(text) : text);
  } catch (error) {
    if (error instanceof DomainError || error instanceof SyntaxError) {
      throw failedValidation(field.field, `The default value is not a valid ${field.type}.`);
    }
    throw error;
  }
}

const NO_CONSTRAINTS = {
  nullable: true,
  defaultValue: null,
  isPrimaryKey: false,
  isUnique: false,
  hasDefault: false,
  maxLength: null,
} as const;

/**
 * Roughly what `pg_get_expr` prints for `default '<text>'::<type>`: plain for booleans and non-negative
 * numbers, a cast literal otherwise. Informational only — nothing parses it back.
 */
function defaultExpression(dbType: string, value: ScalarValue): string {
  if (typeof value === 'boolean') return String(value);
  const text = String(value);
  if (/^(integer|bigint|numeric|double precision)$/.test(dbType) && !text.startsWith('-')) return text;
  return `'${text.replaceAll("'", "''")}'::${dbType}`;
}

const CAST_LITERAL = /^'((?:[^']|'')*)'::[a-z ]+(?:\(\d+(?:,\d+)?\))?$/;

/**
 * The value of a default expression that is a plain literal (`false`, `42`, `'abc'::text`); null for
 * anything else (`now()`, `gen_random_uuid()`), which a registered table's rows must then be given.
 */
function literalDefault(field: FieldSchema): ScalarValue | null {
  if (field.defaultValue === null) return null;
  const cast = CAST_LITERAL.exec(field.defaultValue);
  const text = cast ? cast[1]!.replaceAll("''", "'") : field.defaultValue;
  try {
    return coerceValue(field, field.type === 'json' ? JSON.parse(text) : text);
  } catch (error) {
    if (error instanceof DomainError || error instanceof SyntaxError) return null;
    throw error;
  }
}
