import { createHash } from 'node:crypto';
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { CollectionWatch, WatchedCollection } from '../../../application/realtime/collection-watch.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { type ActivityTables, activityTables, insertActivitySql } from './activity-recording.ts';
import { compiler } from './compiled-shapes.ts';
import { fieldOrThrow } from './filter-sql.ts';
import { ITEM_EVENTS_CHANNEL } from './item-events-wake-ups.ts';
import { WATCH_STALE_STATE, WATCH_TRIGGER } from './item-events-watch-sql.ts';
import { ITEM_EVENTS_LOCK, imageSql, keySql } from './postgres-item-writer.ts';

/** Refuses a statement on a table whose columns changed after it was watched. */
const CHECK_TRIGGER = 'datagate_item_events_check';
/** Records a TRUNCATE as the deletion of every row. */
const TRUNCATE_TRIGGER = 'datagate_item_events_truncate';
/** The log's table, as migration 0005 names it. */
const EVENTS_TABLE = 'datagate_item_events';

/**
 * What the recorded images depend on, as the database describes a table (`relation`: an oid expression):
 * its columns' names, types and type modifiers, and its primary key. Type oids rather than type names, which
 * print differently under another search path.
 */
function signatureSql(relation: string): string {
  return `(coalesce((select pg_catalog.string_agg(pg_catalog.quote_ident(a.attname) || ':' || a.atttypid
      || ':' || a.atttypmod, ',' order by a.attnum)
    from pg_catalog.pg_attribute a where a.attrelid = ${relation} and a.attnum > 0 and not a.attisdropped), '')
    || '|' || coalesce((select i.indkey::text from pg_catalog.pg_index i
      where i.indrelid = ${relation} and i.indisprimary), ''))`;
}

/**
 * Watching on PostgreSQL and PGlite (docs/decisions/0032-item-events-wake-up-and-watch.md): a trigger
 * function per collection, generated from the catalog's description of it, records each changed row in
 * the change log exactly as the item writer would (its `imageSql` and `keySql`), under the writer's
 * advisory lock, and notifies the wake-up channel. Three triggers call it:
 * - `datagate_item_events`, after each row inserted, updated or deleted; an update that changes the
 *   primary key is the deletion of the old key and the creation of the new one;
 * - `datagate_item_events_check`, before each statement: refuses it when the columns are no longer those
 *   the function was generated for (a stale function must never record a wrong image);
 * - `datagate_item_events_truncate`, before a TRUNCATE: the deletion of every row.
 * The function runs as its owner (security definer), so a writer by hand needs no right on the log, with a
 * fixed search path; everything it names is schema-qualified.
 */
export class PostgresCollectionWatch implements CollectionWatch {
  private readonly activityTables: ActivityTables;

  /** `schema`: the collections' PostgreSQL schema; `systemSchema`: the log's, else the search path's. */
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
    private readonly systemSchema?: string,
  ) {
    this.activityTables = activityTables(systemSchema);
  }

  async watch(collection: CollectionSchema, activity?: ActivityEntry): Promise<void> {
    const key = fieldOrThrow(collection, collection.primaryKey ?? '');
    await this.db.transaction().execute(async (trx) => {
      const table = sql.id(this.schema, collection.name);
      // Holds off column changes (and writes) until the triggers are in place.
      await sql`lock table ${table} in share row exclusive mode`.execute(trx);
      await this.requireDescribed(trx, collection);
      const eventsSchema = await this.eventsSchema(trx);
      const { rows } = await sql<{ signature: string }>`
        select ${sql.raw(signatureSql(regclass(this.schema, collection.name)))} as signature`.execute(trx);
      const signature = rows[0]!.signature;
      const events = `${identifier(eventsSchema)}.${identifier(EVENTS_TABLE)}`;
      const fn = sql.raw(
        `${identifier(eventsSchema)}.${identifier(functionName(this.schema, collection.name))}`,
      );
      const body = functionBody(collection, key.name, table, events, signature);
      const tag = dollarTag(body);
      await sql`create or replace function ${fn}() returns trigger language plpgsql
        security definer set search_path = pg_catalog, pg_temp
        as ${sql.raw(`${tag}${body}${tag}`)}`.execute(trx);
      await sql`create or replace trigger ${sql.id(WATCH_TRIGGER)} after insert or update or delete on ${table}
        for each row execute function ${fn}()`.execute(trx);
      await sql`create or replace trigger ${sql.id(CHECK_TRIGGER)} before insert or update or delete on ${table}
        for each statement execute function ${fn}()`.execute(trx);
      await sql`create or replace trigger ${sql.id(TRUNCATE_TRIGGER)} before truncate on ${table}
        for each statement execute function ${fn}()`.execute(trx);
      await sql`comment on trigger ${sql.id(WATCH_TRIGGER)} on ${table} is ${sql.raw(literal(signature))}`.execute(
        trx,
      );
      if (activity) await insertActivitySql(this.activityTables, [activity]).execute(trx);
    });
  }

  async unwatch(collection: string, activity?: ActivityEntry): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const table = sql.id(this.schema, collection);
      const { rows } = await sql<{ watched: boolean }>`
        select exists (select from pg_catalog.pg_trigger
          where tgrelid = ${sql.raw(regclass(this.schema, collection))} and tgname = ${WATCH_TRIGGER}) as watched`.execute(
        trx,
      );
      for (const trigger of [WATCH_TRIGGER, CHECK_TRIGGER, TRUNCATE_TRIGGER]) {
        await sql`drop trigger if exists ${sql.id(trigger)} on ${table}`.execute(trx);
      }
      await this.dropFunction(trx, collection);
      if (activity) await insertActivitySql(this.activityTables, [activity]).execute(trx);
      return rows[0]?.watched ?? false;
    });
  }

  /**
   * Drops the function of a collection whose table was dropped (its triggers went with it). Where there is
   * no change log there is no function either.
   */
  async forget(collection: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if ((await this.eventsSchemaOrNull(trx)) !== null) await this.dropFunction(trx, collection);
    });
  }

  async watched(): Promise<WatchedCollection[]> {
    const { rows } = await sql<{ collection: string; current: boolean }>`
      select c.relname as collection,
        ${sql.raw(signatureSql('c.oid'))} = coalesce(pg_catalog.obj_description(t.oid, 'pg_trigger'), '') as current
      from pg_catalog.pg_trigger t
      join pg_catalog.pg_class c on c.oid = t.tgrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${this.schema} and t.tgname = ${WATCH_TRIGGER}
      order by c.relname`.execute(this.db);
    return rows.map((row) => ({ collection: row.collection, current: row.current }));
  }

  private async dropFunction(trx: Transaction<unknown>, collection: string): Promise<void> {
    const eventsSchema = await this.eventsSchema(trx);
    const fn = `${identifier(eventsSchema)}.${identifier(functionName(this.schema, collection))}`;
    await sql`drop function if exists ${sql.raw(fn)}()`.execute(trx);
  }

  /**
   * The columns the images are generated from must be the table's, now that it is locked: a column
   * changed since the catalog was read would make the function record wrong images.
   */
  private async requireDescribed(trx: Transaction<unknown>, collection: CollectionSchema): Promise<void> {
    const { rows } = await sql<{ name: string; type: string; key: boolean }>`
      select a.attname as name, pg_catalog.format_type(a.atttypid, a.atttypmod) as type,
        exists (select from pg_catalog.pg_index i where i.indrelid = a.attrelid and i.indisprimary
          and i.indnkeyatts = 1 and i.indkey[0] = a.attnum) as key
      from pg_catalog.pg_attribute a
      where a.attrelid = ${sql.raw(regclass(this.schema, collection.name))}
        and a.attnum > 0 and not a.attisdropped
      order by a.attnum`.execute(trx);
    const described = rows.map((row) => [row.name, row.type, row.key]);
    const known = collection.fields.map((field) => [field.name, field.dbType, field.isPrimaryKey]);
    if (JSON.stringify(described) !== JSON.stringify(known)) {
      throw new Error(
        `the columns of "${collection.name}" changed while it was being watched; run the command again`,
      );
    }
  }

  /** The log's schema, by name: a trigger runs in any session, whose search path may not find it. */
  private async eventsSchema(trx: Transaction<unknown>): Promise<string> {
    const schema = await this.eventsSchemaOrNull(trx);
    if (schema === null)
      throw new Error('the change log (datagate_item_events) is missing: run `datagate migrate`');
    return schema;
  }

  private async eventsSchemaOrNull(trx: Transaction<unknown>): Promise<string | null> {
    const where = this.systemSchema
      ? sql`n.nspname = ${this.systemSchema}`
      : sql`pg_catalog.pg_table_is_visible(c.oid)`;
    const { rows } = await sql<{ schema: string }>`
      select n.nspname as schema from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relname = ${EVENTS_TABLE} and ${where}`.execute(trx);
    return rows[0]?.schema ?? null;
  }
}

/**
 * The trigger function's body. The images are the writer's own SQL over the row (`new` or `old` spread into
 * a subquery), so a change recorded here is indistinguishable from one the writer records. Columns win
 * over the function's variables (`#variable_conflict use_column`): a column may be named like one.
 */
function functionBody(
  collection: CollectionSchema,
  keyName: string,
  table: RawBuilder<unknown>,
  events: string,
  signature: string,
): string {
  const key = fieldOrThrow(collection, keyName);
  const images = compiled(sql`${keySql(key)}, ${imageSql(collection)}`);
  const name = literal(collection.name);
  const insert = `insert into ${events} ("collection", "action", "key", "before", "after")`;
  return `
#variable_conflict use_column
declare
  dg_key jsonb;
  dg_image text;
  dg_old_key jsonb;
  dg_old_image text;
begin
  if tg_level = 'STATEMENT' then
    if ${signatureSql('tg_relid')} is distinct from ${literal(signature)} then
      raise exception using errcode = ${literal(WATCH_STALE_STATE)},
        message = pg_catalog.format('The columns of %s changed after it was watched for realtime events.', tg_table_name),
        hint = pg_catalog.format('Run: datagate realtime watch %s', tg_table_name);
    end if;
    if tg_op = 'TRUNCATE' then
      perform pg_catalog.pg_advisory_xact_lock(${ITEM_EVENTS_LOCK}::int8);
      ${insert}
        select ${name}, 'delete', dg_row.dg_key, dg_row.dg_image::json, null
        from (select ${compiled(sql`${keySql(key)} as dg_key, ${imageSql(collection)} as dg_image from ${table}`)}) as dg_row;
      perform pg_catalog.pg_notify(${literal(ITEM_EVENTS_CHANNEL)}, '');
    end if;
    return null;
  end if;
  perform pg_catalog.pg_advisory_xact_lock(${ITEM_EVENTS_LOCK}::int8);
  if tg_op <> 'DELETE' then
    select ${images} into dg_key, dg_image from (select (new).*) as dg_row;
  end if;
  if tg_op <> 'INSERT' then
    select ${images} into dg_old_key, dg_old_image from (select (old).*) as dg_row;
  end if;
  if tg_op = 'UPDATE' and dg_old_key = dg_key then
    ${insert} values (${name}, 'update', dg_key, dg_old_image::json, dg_image::json);
  else
    if dg_old_key is not null then
      ${insert} values (${name}, 'delete', dg_old_key, dg_old_image::json, null);
    end if;
    if dg_key is not null then
      ${insert} values (${name}, 'create', dg_key, null, dg_image::json);
    end if;
  end if;
  perform pg_catalog.pg_notify(${literal(ITEM_EVENTS_CHANNEL)}, '');
  return null;
end
`;
}

/** SQL text of an expression that binds nothing (the canonical renderings are SQL only). */
function compiled(expression: RawBuilder<unknown>): string {
  const { sql: text, parameters } = expression.compile(compiler);
  if (parameters.length > 0) throw new Error('a trigger function cannot bind parameters');
  return text;
}

/** One function per collection, named from a digest: table names may be 63 bytes and any characters. */
function functionName(schema: string, collection: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([schema, collection]))
    .digest('hex');
  return `datagate_item_events_${digest.slice(0, 24)}`;
}

/** The table's oid, from its qualified name. */
function regclass(schema: string, table: string): string {
  return `${literal(`${identifier(schema)}.${identifier(table)}`)}::pg_catalog.regclass`;
}

function identifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** An escape-string literal: right whatever `standard_conforming_strings` says. */
function literal(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** A dollar-quote tag the body does not contain (a column's name could hold any other). */
function dollarTag(body: string): string {
  let tag = '$datagate$';
  for (let n = 1; body.includes(tag); n++) tag = `$datagate${n}$`;
  return tag;
}
