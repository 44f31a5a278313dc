import {
  ACTIVITY_COLLECTION,
  REVISIONS_COLLECTION,
} from '../../../application/activity/history-collections.ts';
import {
  type ActivityEntry,
  type ActivityLog,
  CLIENT_FACTS,
  type HistoryVisibility,
} from '../../../application/ports/activity-log.ts';
import type { SystemPage, SystemQuery } from '../../../application/ports/system-query.ts';
import type { SystemRecord } from '../../../application/system-queries/select-fields.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import { canonicalJson } from '../../../domain/query/canonical-json.ts';
import { coerceValue } from '../../../domain/query/coerce-value.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import { fieldOf } from '../../../domain/schema/collection-schema.ts';
import { RelatedRows } from './in-memory-related-rows.ts';
import type { InMemorySchema } from './in-memory-schema.ts';
import { answerSystemQuery, type CanonicalRecord } from './in-memory-system-query.ts';

/** An item write's record as a committing writer hands it over; `data`/`delta` only with a revision. */
export type WrittenItem = {
  readonly collection: string;
  readonly action: 'create' | 'update' | 'delete';
  readonly item: string;
  readonly revision?: { readonly data: SystemRecord; readonly delta: SystemRecord };
};

type StoredActivity = {
  readonly id: number;
  readonly action: string;
  readonly user: string | null;
  readonly timestamp: Date;
  readonly ip: string | null;
  readonly user_agent: string | null;
  readonly collection: string;
  readonly item: string | null;
  readonly origin: string | null;
};

type StoredRevision = {
  readonly id: number;
  readonly activity: number;
  readonly collection: string;
  readonly item: string;
  readonly data: SystemRecord | null;
  readonly delta: SystemRecord | null;
};

/** Per visible collection, its visible items (key text) and the fields readable on each. */
type Visible = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

const TIMESTAMP = fieldOf(ACTIVITY_COLLECTION, 'timestamp')!;

/**
 * The activity and revisions of the in-memory backend, answering the queries as the SQL statements do:
 * a non-admin's visibility is evaluated on the rows as they are now, before the filter and the counts,
 * and `data`/`delta` are cut to the fields readable on each row.
 */
export class InMemoryActivityLog implements ActivityLog {
  private readonly entries: StoredActivity[] = [];
  private readonly revisionList: StoredRevision[] = [];
  private lastActivity = 0;
  private lastRevision = 0;

  constructor(
    private readonly schema: InMemorySchema,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Called by a committing writer, in the commit: the records exist exactly when the write does. */
  appendWrites(author: Accountability | undefined, written: ReadonlyArray<WrittenItem>): void {
    const timestamp = this.now();
    for (const change of written) {
      const activity = this.add(timestamp, {
        action: change.action,
        user: author?.user ?? null,
        ip: author?.origin?.ip ?? null,
        userAgent: author?.origin?.userAgent ?? null,
        origin: author?.origin?.origin ?? null,
        collection: change.collection,
        item: change.item,
      });
      if (change.revision) {
        this.revisionList.push({
          id: ++this.lastRevision,
          activity,
          collection: change.collection,
          item: change.item,
          ...change.revision,
        });
      }
    }
  }

  async record(entries: ReadonlyArray<ActivityEntry>): Promise<void> {
    const timestamp = this.now();
    for (const entry of entries) this.add(timestamp, entry);
  }

  /** A system area's change, recorded by the repository that makes it, as it makes it. */
  append(entry: ActivityEntry): void {
    this.add(this.now(), entry);
  }

  async prune(before: Date, batch: number): Promise<number> {
    const old = this.entries.filter((entry) => entry.timestamp < before).slice(0, batch);
    const gone = new Set(old.map((entry) => entry.id));
    this.remove(this.entries, (entry) => gone.has(entry.id));
    this.remove(this.revisionList, (revision) => gone.has(revision.activity));
    return gone.size;
  }

  async activity(query: SystemQuery, visibility: HistoryVisibility): Promise<SystemPage<SystemRecord>> {
    const visible = this.visible(visibility);
    const own = (entry: StoredActivity) =>
      visibility === 'all' || (visibility.user !== null && entry.user === visibility.user);
    const unshown = new Set(
      visible === 'all'
        ? []
        : this.revisionList
            .filter((revision) => !deltaShown(revision, visible))
            .map((revision) => revision.activity),
    );
    const records = this.entries
      .filter(
        (entry) =>
          visible === 'all' ||
          (visible.get(entry.collection)?.has(entry.item ?? '') === true && !unshown.has(entry.id)),
      )
      .map((entry) => ({
        ...entry,
        ...(own(entry) ? {} : Object.fromEntries(CLIENT_FACTS.map((fact) => [fact, null]))),
        timestamp: coerceValue(TIMESTAMP, entry.timestamp.toISOString()) as string,
      }));
    return answerSystemQuery(records, activityCanonical, ACTIVITY_COLLECTION, query);
  }

  async revisions(query: SystemQuery, visibility: HistoryVisibility): Promise<SystemPage<SystemRecord>> {
    const visible = this.visible(visibility);
    const records: SystemRecord[] = [];
    for (const revision of this.revisionList) {
      if (visible === 'all') {
        records.push(revision);
        continue;
      }
      const fields = visible.get(revision.collection)?.get(revision.item);
      if (!fields || !deltaShown(revision, visible)) continue;
      records.push({
        ...revision,
        data: revision.data && cut(revision.data, fields),
        delta: revision.delta && cut(revision.delta, fields),
      });
    }
    return answerSystemQuery(records, revisionCanonical, REVISIONS_COLLECTION, query);
  }

  private add(timestamp: Date, entry: ActivityEntry): number {
    const id = ++this.lastActivity;
    this.entries.push({
      id,
      action: entry.action,
      user: entry.user,
      timestamp,
      ip: entry.ip,
      user_agent: entry.userAgent,
      collection: entry.collection,
      item: entry.item,
      origin: entry.origin,
    });
    return id;
  }

  private visible(visibility: HistoryVisibility): Visible | 'all' {
    if (visibility === 'all') return 'all';
    const related = new RelatedRows((name) => this.schema.table(name)?.rows ?? []);
    const visible = new Map<string, Map<string, Set<string>>>();
    for (const { collection, rule } of visibility.collections) {
      const table = this.schema.table(collection.name);
      const key = collection.primaryKey;
      if (!table || key === null) continue;
      const items = new Map<string, Set<string>>();
      for (const row of table.rows) {
        if (!related.matches(rule.rows, row, collection)) continue;
        const fields = [...rule.fields]
          .filter(([, condition]) => related.matches(condition, row, collection))
          .map(([name]) => name);
        items.set(String(row[key]), new Set(fields));
      }
      visible.set(collection.name, items);
    }
    return visible;
  }

  private remove<T>(list: T[], gone: (item: T) => boolean): void {
    const kept = list.filter((item) => !gone(item));
    list.length = 0;
    list.push(...kept);
  }
}

/**
 * Whether the fields readable on the revision's row name a field it wrote (as the SQL's `deltaShown`): one
 * that wrote none of them, and its entry, would only tell that a hidden field changed.
 */
function deltaShown(revision: StoredRevision, visible: Visible): boolean {
  const fields = visible.get(revision.collection)?.get(revision.item);
  if (!fields) return false;
  return revision.delta === null || Object.keys(revision.delta).some((field) => fields.has(field));
}

function cut(record: SystemRecord, fields: ReadonlySet<string>): SystemRecord {
  return Object.fromEntries(Object.entries(record).filter(([name]) => fields.has(name)));
}

function activityCanonical(record: SystemRecord): CanonicalRecord {
  return { ...(record as Record<string, ScalarValue | null>), id: String(record.id) };
}

function revisionCanonical(record: SystemRecord): CanonicalRecord {
  return {
    id: String(record.id),
    activity: String(record.activity),
    collection: record.collection as string,
    item: record.item as string,
    data: record.data === null ? null : canonicalJson(record.data),
    delta: record.delta === null ? null : canonicalJson(record.delta),
  };
}
