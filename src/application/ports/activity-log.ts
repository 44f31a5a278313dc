import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { SystemRecord } from '../system-queries/select-fields.ts';
import type { SystemPage, SystemQuery } from './system-query.ts';

/**
 * One thing that happened, as `record` takes it. Item writes are recorded by the item writer itself, in
 * the write's statement; this is for the rest (users, roles, permissions, schema, sessions).
 */
export type ActivityEntry = {
  readonly action: string;
  readonly user: string | null;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly origin: string | null;
  /** A collection name, or a system area (`datagate_users`, `datagate_roles`, …). */
  readonly collection: string;
  readonly item: string | null;
};

/** A collection whose history a caller may see: the rows and fields of their read rule, on the rows as they are now. */
export type VisibleHistory = { readonly collection: CollectionSchema; readonly rule: ReadRule };

/**
 * Everything (admins), or the history of these collections' readable rows, cut to readable fields, for
 * `user` (null: the public caller, a role's preview): an entry's `ip`, `user_agent` and `origin` are the
 * facts of its author's client, shown on `user`'s own entries only and null on everyone else's.
 */
export type HistoryVisibility =
  | 'all'
  | { readonly user: string | null; readonly collections: ReadonlyArray<VisibleHistory> };

/** The activity entry's members that tell of its author's client rather than of the item. */
export const CLIENT_FACTS = ['ip', 'user_agent', 'origin'] as const;

/**
 * The activity and revisions (docs/api.md §14). The queries are answered in one statement each, the
 * visibility inside it, so pages and counts only ever see what the caller may see. Records come in their
 * wire forms: `id`/`activity` numbers, `timestamp` in UTC with `+00:00`, `data`/`delta` JSON objects.
 */
export interface ActivityLog {
  activity(query: SystemQuery, visibility: HistoryVisibility): Promise<SystemPage<SystemRecord>>;
  revisions(query: SystemQuery, visibility: HistoryVisibility): Promise<SystemPage<SystemRecord>>;
  record(entries: ReadonlyArray<ActivityEntry>): Promise<void>;
  /** Deletes at most `batch` activity entries (and their revisions) older than `before`; how many it deleted. */
  prune(before: Date, batch: number): Promise<number>;
}
