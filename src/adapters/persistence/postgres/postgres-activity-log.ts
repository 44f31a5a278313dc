import { type Kysely, type RawBuilder, sql } from 'kysely';
import type pg from 'pg';
import {
  ACTIVITY_COLLECTION,
  REVISIONS_COLLECTION,
} from '../../../application/activity/history-collections.ts';
import type {
  ActivityEntry,
  ActivityLog,
  CLIENT_FACTS,
  HistoryVisibility,
  VisibleHistory,
} from '../../../application/ports/activity-log.ts';
import type { SystemPage, SystemQuery } from '../../../application/ports/system-query.ts';
import type { SystemRecord } from '../../../application/system-queries/select-fields.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { boundedByWork } from '../statement-timeout-per-work.ts';
import {
  type ActivityTables,
  activityTables,
  insertActivitySql,
  revisionDeltaSql,
} from './activity-recording.ts';
import { canonicalValueSql } from './canonical-value-sql.ts';
import { translateReadError } from './database-errors.ts';
import { comparable, fieldOrThrow, filterSql } from './filter-sql.ts';
import { jsonValueOf } from './json-value-sql.ts';
import { tableOf, topScope } from './row-scope.ts';

/** The advisory lock of the pruning transaction: one instance prunes at a time. */
const ACTIVITY_PRUNE_LOCK = 1_684_108_386;

type PageRow = { rows: string; total_count?: string; filter_count?: string };

/**
 * The activity and revisions on PostgreSQL (docs/api.md §14, docs/decisions/0033). A query is one
 * statement: for a non-admin, a `visible` CTE lists, per collection the caller may read, the keys of the
 * rows their read rule matches now and the fields readable on each (conditional fields evaluated on the
 * row); the history is joined to it, so the page, the filter and both counts see only what the caller may
 * see, and `data`/`delta` are cut to the readable fields before any filter reads them (an update that wrote
 * none of them is left out, with its entry). The join reads
 * every visible row of those collections once per query: fine for the collection sizes of an audit
 * screen, and the reason an admin's query has no such join.
 */
export class PostgresActivityLog implements ActivityLog {
  private readonly tables: ActivityTables;

  /** `schema`: the collections' tables; `systemSchema`: the activity tables' (unset, the search path's). */
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema = 'public',
    systemSchema?: string,
    /** The server pool under `db`, whose per-work statement timeouts bound a request's page. */
    private readonly pool: () => pg.Pool | undefined = () => undefined,
  ) {
    this.tables = activityTables(systemSchema);
  }

  async activity(query: SystemQuery, visibility: HistoryVisibility): Promise<SystemPage<SystemRecord>> {
    const head = sql`a."id", a."action", a."user", a."timestamp"`;
    const tail = sql`a."collection", a."item"`;
    const source =
      visibility === 'all'
        ? sql`select ${head}, a."ip", a."user_agent", ${tail}, a."origin" from ${this.tables.activity} as a`
        : sql`select ${head}, ${ownOnly(visibility.user, 'ip')}, ${ownOnly(visibility.user, 'user_agent')}, ${tail},
              ${ownOnly(visibility.user, 'origin')}
            from ${this.tables.activity} as a
            join visible as v on v.collection = a."collection" and v.item = a."item"
            where not exists (select from ${this.tables.revisions} as r where r."activity" = a."id" and not ${deltaShown(sql`r`)})`;
    return this.page(ACTIVITY_COLLECTION, source, visibility, query);
  }

  async revisions(query: SystemQuery, visibility: HistoryVisibility): Promise<SystemPage<SystemRecord>> {
    const head = sql`r."id", r."activity", r."collection", r."item"`;
    const source =
      visibility === 'all'
        ? sql`select ${head}, r."data"::jsonb as "data", ${revisionDeltaSql(sql`r`)}::jsonb as "delta" from ${this.tables.revisions} as r`
        : sql`select ${head}, ${readable(sql`r."data"`)} as "data", ${readable(revisionDeltaSql(sql`r`))} as "delta"
            from ${this.tables.revisions} as r
            join visible as v on v.collection = r."collection" and v.item = r."item"
            where ${deltaShown(sql`r`)}`;
    return this.page(REVISIONS_COLLECTION, source, visibility, query);
  }

  async record(entries: ReadonlyArray<ActivityEntry>): Promise<void> {
    if (entries.length === 0) return;
    await insertActivitySql(this.tables, entries).execute(this.db);
  }

  /**
   * One small batch, oldest first; rows another transaction holds are skipped, not waited for, so pruning
   * never queues behind (or holds up) anything. Revisions go with their activity, in the same statement.
   * Oldest first by id, which grows with time: the primary key serves, no index on `timestamp` is kept.
   * One instance at a time: another instance's batch in progress makes this one delete nothing.
   */
  async prune(before: Date, batch: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ locked: boolean }>`
        select pg_try_advisory_xact_lock(${ACTIVITY_PRUNE_LOCK}::int8) as locked`.execute(trx);
      if (!rows[0]?.locked) return 0;
      const { rows: deleted } = await sql<{ count: string }>`
        with gone as (delete from ${this.tables.activity} where "id" in (
            select "id" from ${this.tables.activity} where "timestamp" < ${before.toISOString()}::timestamptz
            order by "id" limit ${batch} for update skip locked) returning "id"),
          revisions as (delete from ${this.tables.revisions} where "activity" in (select "id" from gone))
        select count(*)::text as count from gone`.execute(trx);
      return Number(deleted[0]?.count ?? 0);
    });
  }

  private async page(
    collection: CollectionSchema,
    source: RawBuilder<unknown>,
    visibility: HistoryVisibility,
    query: SystemQuery,
  ): Promise<SystemPage<SystemRecord>> {
    // The filter-sql of the items, over `source` aliased `t0` as runSystemQuery does.
    const scope = topScope('');
    const where = query.filter ? filterSql(query.filter, collection, scope) : sql`true`;
    const order = sql.join([
      ...query.sort.map(
        ({ field, direction }) =>
          sql`${comparable(fieldOrThrow(collection, field), scope)} ${direction === 'desc' ? sql`desc` : sql`asc`}`,
      ),
      sql`t0."id"`,
    ]);
    const limit = query.limit === null ? sql`` : sql`limit ${query.limit}`;
    const record = sql`json_build_object(${sql.join(
      collection.fields.map(
        (field) => sql`${field.name}::text, ${jsonValueOf(field, sql`page.${sql.id(field.name)}`)}`,
      ),
    )})`;
    const counts = [
      query.count.total ? sql`, (select count(*) from (${source}) as t0)::text as total_count` : sql``,
      query.count.filtered
        ? sql`, (select count(*) from (${source}) as t0 where ${where})::text as filter_count`
        : sql``,
    ];
    const statement = sql<PageRow>`${visibility === 'all' ? sql`` : sql`with visible as (${this.visible(visibility.collections)})`}
      select (select coalesce(json_agg(${record}), '[]')::text
        from (select * from (${source}) as t0 where ${where} order by ${order} offset ${query.offset} ${limit}) as page) as rows
      ${sql.join(counts, sql``)}`;
    let row: PageRow;
    try {
      row = (await boundedByWork(this.db, this.pool(), query.work, (db) => statement.execute(db))).rows[0]!;
    } catch (error) {
      throw translateReadError(error, query.work !== undefined);
    }
    return {
      records: JSON.parse(row.rows) as SystemRecord[],
      ...(row.total_count === undefined ? {} : { totalCount: Number(row.total_count) }),
      ...(row.filter_count === undefined ? {} : { filterCount: Number(row.filter_count) }),
    };
  }

  /** (collection, item, fields) of every row the caller may read now, in every collection they may read. */
  private visible(visible: ReadonlyArray<VisibleHistory>): RawBuilder<unknown> {
    const parts = visible
      .filter(({ collection }) => collection.primaryKey !== null)
      .map(({ collection, rule }) => {
        const scope = topScope(this.schema);
        const key = fieldOrThrow(collection, collection.primaryKey!);
        const fields = [...rule.fields].map(([name, condition]) =>
          condition === null
            ? sql`${name}::text`
            : sql`case when ${filterSql(condition, collection, scope)} then ${name}::text end`,
        );
        const readableFields =
          fields.length === 0 ? sql`array[]::text[]` : sql`array_remove(array[${sql.join(fields)}], null)`;
        return sql`select ${collection.name}::text as collection, to_jsonb(${canonicalValueSql(key)}) #>> '{}' as item,
            ${readableFields} as fields
          from ${tableOf(scope, collection.name)}
          ${rule.rows === null ? sql`` : sql`where ${filterSql(rule.rows, collection, scope)}`}`;
      });
    if (parts.length === 0)
      return sql`select null::text as collection, null::text as item, null::text[] as fields where false`;
    return sql.join(parts, sql` union all `);
  }
}

/** An entry's client fact (CLIENT_FACTS) where `user` wrote it, else null: before any filter reads it. */
function ownOnly(user: string | null, column: (typeof CLIENT_FACTS)[number]): RawBuilder<unknown> {
  if (user === null) return sql`null::text as ${sql.id(column)}`;
  return sql`case when a."user" = ${user}::uuid then a.${sql.id(column)} end as ${sql.id(column)}`;
}

/**
 * Whether the visible row's fields name a field the revision wrote (a create, whose `delta` is NULL, wrote
 * them all): a revision that wrote none of them, and its entry, would only tell that a hidden field
 * changed, so they are not shown (docs/decisions/0061-a-change-to-hidden-fields-only-is-not-told.md).
 */
function deltaShown(revision: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(${revision}."delta" is null or exists (select from jsonb_object_keys(${revision}."delta"::jsonb) as written(field)
    where written.field = any (v.fields)))`;
}

/** A revision's json object with only the members the visible row's fields name (null stays null). */
function readable(column: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`case when ${column} is null then null else (select coalesce(jsonb_object_agg(field.key, field.value), '{}'::jsonb)
    from jsonb_each(${column}::jsonb) as field where field.key = any (v.fields)) end`;
}
