import { type Kysely, sql } from 'kysely';
import type { SchemaCatalog } from '../../../application/ports/schema-catalog.ts';
import {
  type AccountabilityMode,
  type CollectionSchema,
  type FieldSchema,
  isPresentedSystemCollection,
  isSystemCollection,
  type SchemaSnapshot,
} from '../../../domain/schema/collection-schema.ts';
import { withOneFields } from '../../../domain/schema/one-field-names.ts';
import type { ReferentialAction, Relation } from '../../../domain/schema/relation.ts';
import { unavailableError } from '../database-unreachable.ts';
import { accountabilityOfComment } from './collection-comment.ts';
import { elementTypeOf, fieldTypeOf } from './column-types.ts';
import { chosenOneFieldOf } from './relation-comment.ts';

/** One row per column (or one with null column fields for a table without columns). */
type ColumnRow = {
  table_name: string;
  relation_kind: string;
  /** The table's own comment, where a collection's settings are kept (collection-comment.ts). */
  table_comment: string | null;
  column_name: string | null;
  type_name: string | null;
  db_type: string | null;
  nullable: boolean | null;
  default_value: string | null;
  has_default: boolean | null;
  is_primary_key: boolean | null;
  is_unique: boolean | null;
  max_length: number | null;
  /** An enum column's labels, in declaration order. */
  enum_labels: string[] | null;
  /** For an array column: its element type's base name, SQL type, length and enum labels. */
  element_type_name: string | null;
  element_db_type: string | null;
  element_max_length: number | null;
  element_enum_labels: string[] | null;
};

/**
 * The collections of one PostgreSQL schema, read from pg_catalog in a single statement (stack.md §4d:
 * MikroORM's own introspection breaks on quoted names and is several times slower). Identifiers come back
 * as data, so names with quotes, dots, spaces or any unicode need no special care.
 *
 * - Tables and partitioned tables; views and materialized views too, as read-only collections; foreign
 *   tables are not collections.
 * - Domains are described by their base type (a `positive_int` domain over int4 is an integer).
 * - `isPrimaryKey` and `primaryKey` describe single-column keys only: a composite key leaves the table
 *   without an addressable key.
 * - `isUnique`: a unique, non-partial index on exactly that column (a primary key counts).
 * - `hasDefault`: a default expression, an identity, or a generated column.
 * - Enums list their labels; arrays (of any dimension: PostgreSQL does not enforce it) describe their
 *   element, whose typmod is the column's (`varchar(20)[]`). Labels come back as JSON (pg and PGlite
 *   parse arrays of `name` differently).
 */
const INTROSPECTION = (schema: string) => sql<ColumnRow>`
  select
    c.relname as table_name,
    a.attname as column_name,
    base.typname as type_name,
    format_type(a.atttypid, a.atttypmod) as db_type,
    not a.attnotnull as nullable,
    pg_get_expr(d.adbin, d.adrelid) as default_value,
    (d.adbin is not null or a.attidentity <> '' or a.attgenerated <> '') as has_default,
    exists (
      select from pg_index i
      where i.indrelid = c.oid and i.indisprimary and i.indnkeyatts = 1 and i.indkey[0] = a.attnum
    ) as is_primary_key,
    exists (
      select from pg_index i
      where i.indrelid = c.oid and i.indisunique and i.indnkeyatts = 1 and i.indkey[0] = a.attnum
        and i.indpred is null and i.indexprs is null
    ) as is_unique,
    case when base.typname in ('varchar', 'bpchar') and a.atttypmod > 4 then a.atttypmod - 4 end as max_length,
    c.relkind::text as relation_kind,
    obj_description(c.oid, 'pg_class') as table_comment,
    (select json_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = base.oid)
      as enum_labels,
    elem.typname as element_type_name,
    format_type(elem.oid, a.atttypmod) as element_db_type,
    case when elem.typname in ('varchar', 'bpchar') and a.atttypmod > 4 then a.atttypmod - 4 end
      as element_max_length,
    (select json_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = elem.oid)
      as element_enum_labels
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  left join pg_type t on t.oid = a.atttypid
  left join pg_type base on base.oid = case when t.typtype = 'd' then t.typbasetype else t.oid end
  left join pg_type elem on elem.oid = base.typelem and base.typcategory = 'A' and base.typlen = -1
  left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
  where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v', 'm')
  order by c.relname, a.attnum`;

type RelationRow = {
  constraint_name: string;
  table_name: string;
  column_name: string;
  related_table: string;
  related_column: string;
  on_delete: string;
  on_update: string;
  comment: string | null;
};

/**
 * The single-column foreign keys between tables of the schema (docs/api.md §7a): composite keys and keys
 * to other schemas are not relations of the API.
 */
const RELATIONS = (schema: string) => sql<RelationRow>`
  select con.conname as constraint_name, c.relname as table_name, a.attname as column_name,
    rc.relname as related_table, ra.attname as related_column,
    con.confdeltype::text as on_delete, con.confupdtype::text as on_update,
    obj_description(con.oid, 'pg_constraint') as comment
  from pg_constraint con
  join pg_class c on c.oid = con.conrelid
  join pg_namespace n on n.oid = c.relnamespace
  join pg_class rc on rc.oid = con.confrelid
  join pg_namespace rn on rn.oid = rc.relnamespace
  join pg_attribute a on a.attrelid = con.conrelid and a.attnum = con.conkey[1]
  join pg_attribute ra on ra.attrelid = con.confrelid and ra.attnum = con.confkey[1]
  where con.contype = 'f' and cardinality(con.conkey) = 1 and n.nspname = ${schema} and rn.nspname = ${schema}
  order by c.relname, a.attnum, con.conname`;

/** pg_constraint's one-letter referential actions. */
const ACTIONS: Readonly<Record<string, ReferentialAction>> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};

export class PostgresSchemaCatalog implements SchemaCatalog {
  private snapshot: SchemaSnapshot | null = null;
  /** Refreshes may overlap (a schema change beside a cache clear): the last one started wins. */
  private started = 0;
  private applied = 0;

  /** `schema`: the PostgreSQL schema whose tables are the collections (docs/api.md §4). */
  constructor(
    private readonly db: Kysely<unknown>,
    readonly schema = 'public',
  ) {}

  current(): SchemaSnapshot {
    if (!this.snapshot) throw new Error('PostgresSchemaCatalog.current() before the first refresh()');
    return this.snapshot;
  }

  async refresh(): Promise<SchemaSnapshot> {
    const generation = ++this.started;
    // One transaction, so that the relations are those of the same tables.
    const [columns, relations] = await this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(
        async (trx) =>
          [
            (await INTROSPECTION(this.schema).execute(trx)).rows,
            (await RELATIONS(this.schema).execute(trx)).rows,
          ] as const,
      )
      .catch((error: unknown) => {
        throw unavailableError(error) ?? error;
      });
    if (generation > this.applied) {
      this.applied = generation;
      const collections = collectionsOf(columns);
      this.snapshot = { collections, relations: relationsOf(relations, collections) };
    }
    return this.snapshot!;
  }
}

function relationsOf(
  rows: ReadonlyArray<RelationRow>,
  collections: ReadonlyMap<string, CollectionSchema>,
): Relation[] {
  const between = rows.filter((row) => collections.has(row.table_name) && collections.has(row.related_table));
  return withOneFields(
    between.map((row) => ({
      constraint: row.constraint_name,
      collection: row.table_name,
      field: row.column_name,
      relatedCollection: row.related_table,
      relatedField: row.related_column,
      onDelete: ACTIONS[row.on_delete] ?? 'no action',
      onUpdate: ACTIONS[row.on_update] ?? 'no action',
      chosenOneField: chosenOneFieldOf(row.comment),
    })),
    collections,
  );
}

function collectionsOf(rows: ReadonlyArray<ColumnRow>): ReadonlyMap<string, CollectionSchema> {
  const fieldsByTable = new Map<string, FieldSchema[]>();
  const keyByTable = new Map<string, string>();
  const views = new Set<string>();
  const settings = new Map<string, AccountabilityMode>();
  for (const row of rows) {
    if (isSystemCollection(row.table_name) && !isPresentedSystemCollection(row.table_name)) continue;
    const accountability = accountabilityOfComment(row.table_comment);
    if (accountability !== undefined) settings.set(row.table_name, accountability);
    const fields = fieldsByTable.get(row.table_name) ?? [];
    fieldsByTable.set(row.table_name, fields);
    if (row.relation_kind === 'v' || row.relation_kind === 'm') views.add(row.table_name);
    if (row.column_name === null) continue;
    const isPrimaryKey = row.is_primary_key === true;
    if (isPrimaryKey) keyByTable.set(row.table_name, row.column_name);
    fields.push({
      name: row.column_name,
      ...typeOf(row),
      dbType: row.db_type ?? '',
      nullable: row.nullable === true,
      defaultValue: row.default_value,
      isPrimaryKey,
      isUnique: row.is_unique === true,
      hasDefault: row.has_default === true,
      maxLength: row.max_length,
    });
  }
  const collections = new Map<string, CollectionSchema>();
  for (const [name, fields] of fieldsByTable) {
    const primaryKey = keyByTable.get(name) ?? null;
    const accountability = settings.has(name) ? { accountability: settings.get(name)! } : {};
    collections.set(
      name,
      views.has(name)
        ? { name, primaryKey, fields, readOnly: true, ...accountability }
        : { name, primaryKey, fields, ...accountability },
    );
  }
  return collections;
}

/** The field type, with an enum's labels or an array's element where the column has them. */
function typeOf(row: ColumnRow): Pick<FieldSchema, 'type' | 'choices' | 'element'> {
  if (row.enum_labels !== null) return { type: 'string', choices: row.enum_labels };
  if (row.element_type_name === null) return { type: fieldTypeOf(row.type_name ?? '') };
  const type = elementTypeOf(row.element_type_name, row.element_enum_labels !== null);
  if (type === null) return { type: 'unknown' };
  const element = { type, dbType: row.element_db_type ?? '', maxLength: row.element_max_length };
  return {
    type: 'array',
    element: row.element_enum_labels === null ? element : { ...element, choices: row.element_enum_labels },
  };
}
