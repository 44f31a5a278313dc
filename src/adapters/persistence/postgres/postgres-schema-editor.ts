import { CompiledQuery, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { NewRelation, RelationChange, SchemaEditor } from '../../../application/ports/schema-catalog.ts';
import {
  collectionExists,
  DomainError,
  failedValidation,
  notFound,
  readOnlyCollection,
  recordNotUnique,
} from '../../../domain/errors.ts';
import {
  type AccountabilityMode,
  type CollectionSchema,
  isSystemCollection,
} from '../../../domain/schema/collection-schema.ts';
import { countsByItself, type NewField } from '../../../domain/schema/new-field.ts';
import {
  checkCollectionName,
  checkNewField,
  checkNewFields,
} from '../../../domain/schema/new-field-rules.ts';
import { checkNewRelation, checkOneField } from '../../../domain/schema/new-relation-rules.ts';
import type { Relation } from '../../../domain/schema/relation.ts';
import { manyToOneOf } from '../../../domain/schema/relations-of.ts';
import { unavailableError } from '../database-unreachable.ts';
import { setLocalTimeout } from '../statement-timeout-per-work.ts';
import { type ActivityTables, activityTables, insertActivitySql } from './activity-recording.ts';
import { collectionComment } from './collection-comment.ts';
import { columnTypeOf } from './column-types.ts';
import { sqlStateOf } from './database-errors.ts';
import type { PostgresSchemaCatalog } from './postgres-schema-catalog.ts';
import { chosenOneFieldOf, relationComment } from './relation-comment.ts';

/**
 * Creates and drops tables and columns in the catalog's schema, each change in a transaction (with its
 * activity entry, when given: PostgreSQL's DDL is transactional), and refreshes the catalog after it. New
 * names are validated before any SQL is built and then quoted anyway; existing tables and columns are
 * addressed by whatever name the database gives them.
 */
export class PostgresSchemaEditor implements SchemaEditor {
  private readonly activityTables: ActivityTables;

  /**
   * `systemSchema`: where the activity table is (unset, the search path's). `pool`: the server pool under `db`,
   * whose per-work statement timeouts bound each change by `database.statementTimeout.admin` (only an admin
   * changes the schema); without it, the pool's own timeout.
   */
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly catalog: PostgresSchemaCatalog,
    systemSchema?: string,
    private readonly pool: () => pg.Pool | undefined = () => undefined,
  ) {
    this.activityTables = activityTables(systemSchema);
  }

  async createCollection(
    name: string,
    fields: ReadonlyArray<NewField>,
    activity?: ActivityEntry,
    accountability: AccountabilityMode = 'all',
  ): Promise<CollectionSchema> {
    checkCollectionName(name);
    checkNewFields(fields);
    if ((await this.catalog.refresh()).collections.has(name)) throw collectionExists(name);
    await this.change(
      async (trx) => {
        for (const field of fields) await checkDefaultFits(trx, field);
        await sql`create table ${this.table(name)} (${sql.join(fields.map(columnDefinition))})`.execute(trx);
        // A new table has no comment: the default needs none.
        if (accountability !== 'all') await this.setComment(trx, name, accountability);
      },
      // Tables, views, indexes and sequences share one namespace, and a table's row type shares the types'.
      ddlErrors({
        '42P07': () => nameTaken(name),
        '42710': () => nameTaken(name),
        '23505': () => nameTaken(name),
      }),
      activity,
    );
    return this.collectionOrThrow(name);
  }

  async dropCollection(name: string, activity?: ActivityEntry): Promise<void> {
    await this.existing(name);
    await this.change(
      (trx) => sql`drop table ${this.table(name)}`.execute(trx),
      ddlErrors({
        '42P01': () => collectionNotFound(name),
        '2BP01': () => failedValidation('collection', 'Other database objects depend on this collection.'),
      }),
      activity,
    );
  }

  async addField(collection: string, field: NewField, activity?: ActivityEntry): Promise<CollectionSchema> {
    checkNewField(field);
    await this.existing(collection);
    await this.change(
      async (trx) => {
        await checkDefaultFits(trx, field);
        await sql`alter table ${this.table(collection)} add column ${columnDefinition(field)}`.execute(trx);
      },
      ddlErrors({
        '42P01': () => collectionNotFound(collection),
        '42701': () => recordNotUnique('field'),
        '42P16': () => failedValidation(field.field, 'The collection already has a primary key.'),
        '23502': () => failedValidation(field.field, 'Existing items would have no value for this field.'),
        // The unique index of a field whose default fills two or more existing items with one value.
        '23505': () => recordNotUnique(field.field),
        // PostgreSQL never frees a dropped column's place in its table, so dropped columns count too.
        '54011': () =>
          failedValidation(
            field.field,
            'The collection has 1,600 columns, the most PostgreSQL allows (dropped ones count: their place is never freed).',
          ),
      }),
      activity,
    );
    return this.collectionOrThrow(collection);
  }

  async dropField(collection: string, field: string, activity?: ActivityEntry): Promise<CollectionSchema> {
    const existing = await this.existing(collection);
    const target = existing.fields.find((candidate) => candidate.name === field);
    if (!target) throw notFound('Field');
    if (target.isPrimaryKey) throw failedValidation(field, 'The primary key field cannot be dropped.');
    await this.change(
      (trx) => sql`alter table ${this.table(collection)} drop column ${sql.id(field)}`.execute(trx),
      ddlErrors({
        '42P01': () => collectionNotFound(collection),
        '42703': () => notFound('Field'),
        '2BP01': () => failedValidation(field, 'Other database objects depend on this field.'),
      }),
      activity,
    );
    return this.collectionOrThrow(collection);
  }

  async setAccountability(
    collection: string,
    mode: AccountabilityMode,
    activity?: ActivityEntry,
  ): Promise<CollectionSchema> {
    const existing = await this.existing(collection);
    if (existing.readOnly) throw readOnlyCollection(collection);
    await this.change(
      (trx) => this.setComment(trx, collection, mode),
      ddlErrors({ '42P01': () => collectionNotFound(collection) }),
      activity,
    );
    return this.collectionOrThrow(collection);
  }

  async createRelation(relation: NewRelation): Promise<Relation> {
    const checked = checkNewRelation(relation, await this.catalog.refresh());
    await this.change(
      async (trx) => {
        await sql`alter table ${this.table(checked.collection)} add constraint ${sql.id(checked.constraint)}
        foreign key (${sql.id(checked.field)}) references ${this.table(checked.relatedCollection)} (${sql.id(checked.relatedField)})
        on delete ${sql.raw(checked.onDelete)} on update ${sql.raw(checked.onUpdate)}`.execute(trx);
        if (checked.chosenOneField) await this.comment(trx, checked, checked.chosenOneField);
      },
      ddlErrors({
        '42P01': () => collectionNotFound(checked.collection),
        '42710': () => recordNotUnique('field'),
        '23503': () => failedValidation(checked.field, 'Existing items refer to items that do not exist.'),
        '42830': () =>
          failedValidation('related_field', 'The field referred to is neither the primary key nor unique.'),
        '42804': () => failedValidation(checked.field, 'The two fields are of incompatible types.'),
      }),
    );
    const created = manyToOneOf(this.catalog.current(), checked.collection, checked.field);
    if (!created) throw new Error(`Relation "${checked.constraint}" is missing right after it was created`);
    return created;
  }

  async updateRelation(collection: string, field: string, change: RelationChange): Promise<Relation> {
    const snapshot = await this.catalog.refresh();
    const relation = manyToOneOf(snapshot, collection, field);
    if (!relation) throw notFound('Relation');
    if (typeof change.oneField === 'string') {
      checkOneField(
        change.oneField,
        snapshot.collections.get(relation.relatedCollection)!,
        snapshot,
        relation,
      );
    }
    const onDelete = change.onDelete ?? relation.onDelete;
    const onUpdate = change.onUpdate ?? relation.onUpdate;
    const remade = onDelete !== relation.onDelete || onUpdate !== relation.onUpdate;
    await this.change(
      async (trx) => {
        // Dropping the constraint drops its comment: the chosen name is read first, to be kept.
        const chosen =
          change.oneField === undefined ? await this.chosenOneField(trx, relation) : change.oneField;
        if (remade) {
          await sql`alter table ${this.table(collection)} drop constraint ${sql.id(relation.constraint)}`.execute(
            trx,
          );
          await sql`alter table ${this.table(collection)} add constraint ${sql.id(relation.constraint)}
          foreign key (${sql.id(field)}) references ${this.table(relation.relatedCollection)} (${sql.id(relation.relatedField)})
          on delete ${sql.raw(onDelete)} on update ${sql.raw(onUpdate)}`.execute(trx);
        }
        if (remade || change.oneField !== undefined) await this.comment(trx, relation, chosen ?? null);
      },
      ddlErrors({ '42P01': () => collectionNotFound(collection), '42704': () => notFound('Relation') }),
    );
    const updated = manyToOneOf(this.catalog.current(), collection, field);
    if (!updated) throw new Error(`Relation "${relation.constraint}" is missing right after it was changed`);
    return updated;
  }

  /** Sets the collection's settings kept in its table's comment (collection-comment.ts). */
  private async setComment(
    trx: Transaction<unknown>,
    collection: string,
    accountability: AccountabilityMode,
  ): Promise<void> {
    const comment = collectionComment(accountability);
    // COMMENT takes no parameters: the text is one of three fixed JSON strings, quoted by sql.lit.
    await sql`comment on table ${this.table(collection)} is ${comment === null ? sql`null` : sql.lit(comment)}`.execute(
      trx,
    );
  }

  /** Sets (or, with null, removes) the one-to-many name kept in the constraint's comment. */
  private async comment(
    trx: Transaction<unknown>,
    relation: Pick<Relation, 'collection' | 'constraint'>,
    oneField: string | null,
  ): Promise<void> {
    // COMMENT takes no parameters: the name was checked to be letters, digits and "_", and sql.lit quotes it.
    const text = oneField === null ? sql`null` : sql.lit(relationComment(oneField));
    await sql`comment on constraint ${sql.id(relation.constraint)} on ${this.table(relation.collection)} is ${text}`.execute(
      trx,
    );
  }

  private async chosenOneField(trx: Transaction<unknown>, relation: Relation): Promise<string | undefined> {
    const { rows } = await sql<{ comment: string | null }>`
      select obj_description(con.oid, 'pg_constraint') as comment from pg_constraint con
      join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${this.catalog.schema} and c.relname = ${relation.collection}
        and con.conname = ${relation.constraint}`.execute(trx);
    return chosenOneFieldOf(rows[0]?.comment ?? null);
  }

  async dropRelation(collection: string, field: string): Promise<void> {
    const relation = manyToOneOf(await this.catalog.refresh(), collection, field);
    if (!relation) throw notFound('Relation');
    await this.change(
      (trx) =>
        sql`alter table ${this.table(collection)} drop constraint ${sql.id(relation.constraint)}`.execute(
          trx,
        ),
      ddlErrors({ '42P01': () => collectionNotFound(collection), '42704': () => notFound('Relation') }),
    );
  }

  private table(name: string): RawBuilder<unknown> {
    return sql.id(this.catalog.schema, name);
  }

  /** The collection as the database has it now (the catalog may be stale); system tables do not exist. */
  private async existing(name: string): Promise<CollectionSchema> {
    const collection = isSystemCollection(name)
      ? undefined
      : (await this.catalog.refresh()).collections.get(name);
    if (!collection) throw collectionNotFound(name);
    return collection;
  }

  private async change(
    work: (trx: Transaction<unknown>) => Promise<unknown>,
    translate: (error: unknown) => unknown,
    activity?: ActivityEntry,
  ): Promise<void> {
    const bound = setLocalTimeout(this.pool(), 'admin');
    try {
      await this.db.transaction().execute(async (trx) => {
        if (bound) await trx.executeQuery(CompiledQuery.raw(bound));
        await work(trx);
        if (activity) await insertActivitySql(this.activityTables, [activity]).execute(trx);
      });
    } catch (error) {
      throw unavailableError(error, bound !== undefined) ?? translate(error);
    } finally {
      // Also after a failure: a concurrent change may be what failed this one.
      await this.catalog.refresh();
    }
  }

  private collectionOrThrow(name: string): CollectionSchema {
    const collection = this.catalog.current().collections.get(name);
    if (!collection) throw new Error(`Collection "${name}" is missing right after it was changed`);
    return collection;
  }
}

/** A new collection's name held by something else: another request's collection, an index, a sequence, a type. */
const nameTaken = (name: string) =>
  new DomainError(
    'RECORD_NOT_UNIQUE',
    `The name "${name}" is taken by another object of the database schema (a collection created meanwhile, an index, a sequence or a type).`,
    { field: 'collection' },
  );

const collectionNotFound = (name: string) =>
  new DomainError('COLLECTION_NOT_FOUND', `Collection "${name}" does not exist.`);

/** SQLSTATE → the domain error it means here; other errors pass unchanged. */
function ddlErrors(byState: Readonly<Record<string, () => DomainError>>) {
  return (error: unknown): unknown => {
    const state = sqlStateOf(error);
    return state && Object.hasOwn(byState, state) ? byState[state]!() : error;
  };
}

/**
 * A column definition from a validated NewField (see new-field-rules.ts): the name quoted, the type from
 * a fixed list, the default as a string literal cast to the column type.
 * - A primary key is never null; an integer one without a default counts itself (identity), a uuid one
 *   gets no default: the application generates UUID v7 keys.
 * - Otherwise nullable unless `isNullable: false`.
 */
function columnDefinition(field: NewField): RawBuilder<unknown> {
  const type = sql.raw(columnTypeOf(field.type, field.maxLength));
  const hasDefault = field.defaultValue !== undefined && field.defaultValue !== null;
  const parts: RawBuilder<unknown>[] = [sql`${sql.id(field.field)} ${type}`];
  if (countsByItself(field)) parts.push(sql`generated by default as identity`);
  if (field.isPrimaryKey) parts.push(sql`primary key`);
  else if (field.isNullable === false) parts.push(sql`not null`);
  // Validated to print plainly (no NUL) and to fit the type; `sql.lit` doubles quotes, and the server's
  // standard_conforming_strings (on since PostgreSQL 9.1) keeps backslashes literal.
  if (hasDefault) parts.push(sql`default ${sql.lit(String(field.defaultValue))}::${type}`);
  if (field.isUnique && !field.isPrimaryKey) parts.push(sql`unique`);
  return sql.join(parts, sql` `);
}

/**
 * Lets PostgreSQL itself decide whether the default's text is a value of the column's type, with the text
 * as a bound parameter: `'abc'` for an integer fails here, naming its field, instead of in the DDL.
 */
async function checkDefaultFits(trx: Transaction<unknown>, field: NewField): Promise<void> {
  if (field.defaultValue === undefined || field.defaultValue === null) return;
  try {
    await sql`select cast(${String(field.defaultValue)} as ${sql.raw(columnTypeOf(field.type, field.maxLength))})`.execute(
      trx,
    );
  } catch (error) {
    if (sqlStateOf(error)?.startsWith('22')) {
      throw failedValidation(field.field, `The default value is not a valid ${field.type}.`);
    }
    throw error;
  }
}
