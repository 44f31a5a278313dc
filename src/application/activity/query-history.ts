import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ReadRules } from '../items/read-rules.ts';
import type { ActivityLog, HistoryVisibility } from '../ports/activity-log.ts';
import type { Clock } from '../ports/clock.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { SystemPage, SystemQuery } from '../ports/system-query.ts';
import { type SystemRecord, selectFields } from '../system-queries/select-fields.ts';
import { type SystemList, systemList } from '../system-queries/system-list.ts';
import { parseSystemFields, parseSystemListQuery } from '../system-queries/system-list-query.ts';
import { ACTIVITY_COLLECTION, REVISIONS_COLLECTION } from './history-collections.ts';
import { historyVisibility } from './history-visibility.ts';

/** Which history: the activity entries, or the revisions. */
export type HistoryKind = 'activity' | 'revisions';

const COLLECTIONS: Readonly<Record<HistoryKind, CollectionSchema>> = {
  activity: ACTIVITY_COLLECTION,
  revisions: REVISIONS_COLLECTION,
};

/** Ids are positive int8s; anything else is no record, answered as a missing one. */
const RECORD_ID = /^[1-9]\d{0,18}$/;

/**
 * GET /activity, /activity/:id, /revisions and /revisions/:id (docs/api.md §14): the item query language
 * over the history's fields, confidential by default (history-visibility.ts). A record the caller may not
 * see is 404 exactly like one that does not exist.
 */
export class QueryHistoryHandler {
  private readonly collection: CollectionSchema;

  constructor(
    private readonly kind: HistoryKind,
    private readonly log: ActivityLog,
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
  ) {
    this.collection = COLLECTIONS[kind];
  }

  async list(caller: Accountability, query: RawItemQuery): Promise<SystemList> {
    const now = this.clock.now();
    const request = parseSystemListQuery(query, this.collection, this.limits, caller, now);
    const visibility = await historyVisibility(caller, this.catalog, this.readRules, now);
    return systemList(await this.read(request.query, visibility), (record) => record, request.fields);
  }

  async get(caller: Accountability, id: string, query?: RawItemQuery): Promise<SystemRecord> {
    const fields = parseSystemFields(query, this.collection, this.limits);
    const record = await this.find(caller, id);
    return selectFields(record, fields);
  }

  /** The whole record, as the caller may see it; NOT_FOUND when they may not. */
  async find(caller: Accountability, id: string): Promise<SystemRecord> {
    if (!RECORD_ID.test(id)) throw notFound();
    const visibility = await historyVisibility(caller, this.catalog, this.readRules, this.clock.now());
    const page = await this.read(
      {
        filter: { kind: 'condition', field: 'id', operator: '_eq', value: id },
        sort: [],
        limit: 1,
        offset: 0,
        count: { total: false, filtered: false },
        work: caller.work,
      },
      visibility,
    );
    const record = page.records[0];
    if (!record) throw notFound();
    return record;
  }

  private read(query: SystemQuery, visibility: HistoryVisibility): Promise<SystemPage<SystemRecord>> {
    return this.kind === 'activity'
      ? this.log.activity(query, visibility)
      : this.log.revisions(query, visibility);
  }
}
