import { type RawBuilder, sql } from 'kysely';
import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import {
  accountabilityOf,
  type CollectionSchema,
  type FieldSchema,
} from '../../../domain/schema/collection-schema.ts';
import { canonicalValueSql } from './canonical-value-sql.ts';
import { jsonValueSql } from './json-value-sql.ts';

/** The activity and revisions tables (migration 0006), in the system tables' schema. */
export type ActivityTables = {
  readonly activity: RawBuilder<unknown>;
  readonly revisions: RawBuilder<unknown>;
  /** The activity ids' sequence, as `nextval` takes it (a bound text cast to regclass). */
  readonly activityIds: string;
};

export function activityTables(systemSchema?: string): ActivityTables {
  const table = (name: string) => (systemSchema ? sql.id(systemSchema, name) : sql.id(name));
  const sequence = '"datagate_activity_id_seq"';
  return {
    activity: table('datagate_activity'),
    revisions: table('datagate_revisions'),
    activityIds: systemSchema ? `"${systemSchema.replaceAll('"', '""')}".${sequence}` : sequence,
  };
}

/**
 * Inserts entries as given, in one statement: the system areas' changes (in their change's transaction)
 * and the sessions' logins and logouts.
 */
export function insertActivitySql(
  tables: ActivityTables,
  entries: ReadonlyArray<ActivityEntry>,
): RawBuilder<unknown> {
  const rows = entries.map(
    (entry) =>
      sql`(${entry.action}::text, ${entry.user}::uuid, ${entry.ip}::text, ${entry.userAgent}::text,
        ${entry.collection}::text, ${entry.item}::text, ${entry.origin}::text)`,
  );
  return sql`insert into ${tables.activity} ("action", "user", "ip", "user_agent", "collection", "item", "origin")
    values ${sql.join(rows)}`;
}

/** Where a writer records activity, and on whose behalf (absent: the system, with no user). */
export type ActivityRecording = { readonly tables: ActivityTables; readonly author?: Accountability };

/**
 * What one write statement adds so that it records its own activity (docs/decisions/0033): columns for
 * the `changed` CTE's RETURNING (each changed row's key as text, its entry's id and, with revisions, its
 * wire image and that of the written fields), and the CTEs that insert an activity row and a revision per
 * changed row, both straight from `changed`: the entry's id is drawn there, so the revision needs no join
 * with the entry. Being part of the write's statement, the records commit and roll back with it, at the
 * cost of an insert or two.
 */
export type ActivitySql = { readonly returning: RawBuilder<unknown>; readonly ctes: RawBuilder<unknown> };

/**
 * Null when the collection records nothing (`accountability` null) or has no key to name an item by.
 * `written`: the fields a create or update wrote, the revision's `delta` (null: every field, as a create's,
 * stored as a NULL `delta` that reads as `data`: see `revisionDeltaSql`).
 */
export function activitySql(
  recording: ActivityRecording,
  collection: CollectionSchema,
  action: 'create' | 'update' | 'delete',
  written: ReadonlyArray<string> | null,
): ActivitySql | null {
  const mode = accountabilityOf(collection);
  if (mode === null || collection.primaryKey === null) return null;
  const key = collection.fields.find((field) => field.name === collection.primaryKey)!;
  const revisions = mode === 'all' && action !== 'delete';
  const { tables, author } = recording;
  const origin = author?.origin;
  // An update's delta is the row's image cut to the written fields, rendered from the row as the image is:
  // the same keys in the same order, the same values, with no pass over the image's JSON per row.
  const images = revisions
    ? sql`, ${wireImageSql(collection)} as audit_data${
        written === null ? sql`` : sql`, ${wireImageSql(collection, new Set(written))} as audit_delta`
      }`
    : sql``;
  const returning = sql`, (to_jsonb(${canonicalValueSql(key)}) #>> '{}') as audit_item,
    nextval(${tables.activityIds}::regclass) as audit_id${images}`;
  const activity = sql`audit_activity as (insert into ${tables.activity}
      ("id", "action", "user", "ip", "user_agent", "collection", "item", "origin")
    select changed.audit_id, ${action}::text, ${author?.user ?? null}::uuid, ${origin?.ip ?? null}::text,
      ${origin?.userAgent ?? null}::text, ${collection.name}::text, changed.audit_item, ${origin?.origin ?? null}::text
    from changed)`;
  if (!revisions) return { returning, ctes: sql`, ${activity}` };
  // A create wrote every field: its delta is its data, stored once (NULL here) and read back as `data`.
  const delta = written === null ? sql`null::json` : sql`changed.audit_delta`;
  return {
    returning,
    ctes: sql`, ${activity}, audit_revisions as (insert into ${tables.revisions}
        ("activity", "collection", "item", "data", "delta")
      select changed.audit_id, ${collection.name}::text, changed.audit_item, changed.audit_data, ${delta}
      from changed)`,
  };
}

/** A revision's `delta` as read: a NULL one (a create's) is its `data`. `revision`: the revisions' alias. */
export function revisionDeltaSql(revision: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`coalesce(${revision}."delta", ${revision}."data")`;
}

/**
 * The row's modelled columns in their docs/api.md §4 wire forms, as a JSON object: what a GET answers.
 * `only`: just these of them, still in the collection's order.
 */
function wireImageSql(collection: CollectionSchema, only?: ReadonlySet<string>): RawBuilder<unknown> {
  const fields = collection.fields.filter(
    (field: FieldSchema) => field.type !== 'unknown' && (only === undefined || only.has(field.name)),
  );
  const columns = sql.join(fields.map((field) => sql`${jsonValueSql(field)} as ${sql.id(field.name)}`));
  return sql`(select row_to_json(image.*) from (select ${fields.length === 0 ? sql`` : columns}) as image)`;
}
