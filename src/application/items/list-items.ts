import type { Accountability } from '../../domain/accountability.ts';
import {
  assertFieldsQueryable,
  assertFilterQueryable,
  projectFields,
} from '../../domain/permissions/readable-fields.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import { invalidQuery } from '../../domain/query/invalid-query.ts';
import type { ItemQuery, SortField } from '../../domain/query/item-query.ts';
import { afterCondition, keysetOf } from '../../domain/query/keyset.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { Clock } from '../ports/clock.ts';
import type {
  ItemListRequest,
  ItemListResult,
  ItemStore,
  SelectedField,
  SortKey,
} from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { collectionFor, type SystemReach, USER_COLLECTIONS_ONLY } from './collection-access.ts';
import type { CursorQuery, ItemCursors } from './item-cursors.ts';
import { ItemQueryMemo } from './item-query-memo.ts';
import { asAsked, type ListCounts, listCounts } from './list-counts.ts';
import { parseAsCaller } from './parse-as-caller.ts';
import type { ReadRules } from './read-rules.ts';
import { RelationalRead } from './relational-read.ts';
import { rowConditions, searchCondition } from './row-conditions.ts';
import { withFreshSchema } from './with-fresh-schema.ts';

export type ListItemsQuery = { collection: string; query: RawItemQuery };

/** The page and the metadata asked for; `next` (with `meta=next`) is null after the last page. */
export type ItemPage = Omit<ItemListResult, 'lastRow'> & { readonly next?: string | null };

/** A list decided but not run: its store request, its parsed query, and the cursor `meta=next` seals. */
export type ListPlan = {
  readonly request: ItemListRequest;
  readonly query: ItemQuery;
  readonly cursor: CursorQuery | null;
  readonly counts: ListCounts;
};

/**
 * GET /items/:collection — the rows and fields the caller may see, in one store call. A page whose JSON
 * text would exceed `responseMaxBytes` is refused (RESPONSE_TOO_LARGE) rather than built.
 *
 * Keyset pages (`after`, `meta=next`; docs/decisions/0019): the cursor's condition is one more filter on
 * the page, ANDed with the caller's rule and filter, so a cursor can narrow what the query shows and
 * never widen it.
 */
export class ListItemsHandler {
  /** Queries parsed with the configured limits (item-query-memo.ts). */
  private readonly queries: ItemQueryMemo;

  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly items: ItemStore,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
    private readonly responseMaxBytes: number,
    private readonly cursors: ItemCursors,
    private readonly reach: SystemReach = USER_COLLECTIONS_ONLY,
  ) {
    this.queries = new ItemQueryMemo(limits);
  }

  execute(caller: Accountability, request: ListItemsQuery): Promise<ItemPage> {
    return withFreshSchema(this.catalog, () => this.read(caller, request));
  }

  private async read(caller: Accountability, request: ListItemsQuery): Promise<ItemPage> {
    const { request: list, query, cursor, counts } = await this.plan(caller, request);
    const { lastRow, ...page } = asAsked(await this.items.list(list), query.meta, counts);
    if (!cursor) return page;
    const values = lastRow ? cursor.keyset.map(({ field }) => lastRow[field] ?? null) : null;
    return { ...page, next: values ? this.cursors.seal(values, cursor) : null };
  }

  /**
   * The store request of the list, decided for the caller (rules, fields, filter, search, sort, page) but
   * not run, for a reader that pages further itself (an export). `limits` replaces the configured ones.
   * Call it inside `withFreshSchema`.
   */
  async plan(
    caller: Accountability,
    request: ListItemsQuery,
    limits: QueryLimits = this.limits,
  ): Promise<ListPlan> {
    const collection = collectionFor(this.catalog, caller, request.collection, this.reach);
    const now = this.clock.now();
    const rule = await this.rules.for(caller, collection, now);
    const schema = this.catalog.current();
    const query = await parseAsCaller(this.rules, caller, now, (witness) =>
      limits === this.limits
        ? this.queries.parse(request.query, collection, schema, witness)
        : parseItemQuery(request.query, collection, limits, schema, witness),
    );
    let select: ReadonlyArray<SelectedField>;
    let sort: ReadonlyArray<SortKey> = query.sort;
    let filter: BoundFilterNode | null;
    if (query.relational) {
      const relational = await RelationalRead.start(this.rules, caller, query, now);
      select = relational.select(rule, query);
      const conditions = query.filter ? [relational.filter(rule, collection, query.filter)] : [];
      if (query.search !== null) conditions.push(searchCondition(rule, collection, query.search));
      filter = conditions.length === 0 ? null : allOf(conditions);
      sort = relational.sort(rule, query.sort);
    } else {
      select = projectFields(caller, rule, query.fields);
      if (query.filter) assertFilterQueryable(caller, rule, query.filter);
      assertFieldsQueryable(
        caller,
        rule,
        query.sort.map((sort) => sort.field),
      );
      filter = rowConditions(caller, rule, collection, query, now);
    }
    const cursorQuery = this.cursorQuery(query, collection);
    const after =
      cursorQuery && query.after !== null
        ? afterCondition(cursorQuery.keyset, this.cursors.open(query.after, cursorQuery), collection)
        : null;
    const counts = listCounts(query.meta, rule.rows, filter);
    const list: ItemListRequest = {
      collection,
      work: caller.work,
      select,
      visible: rule.rows,
      filter,
      sort,
      limit: query.limit,
      offset: query.offset,
      ...(after ? { after } : {}),
      ...(query.meta.next && cursorQuery ? { lastRowFields: cursorQuery.keyset.map(fieldName) } : {}),
      count: counts.count,
      maxBytes: this.responseMaxBytes,
    };
    return { request: list, query, cursor: query.meta.next ? cursorQuery : null, counts };
  }

  /** What a cursor of this query is made for, when the query uses one (`after` or `meta=next`). */
  private cursorQuery(query: ItemQuery, collection: CollectionSchema): CursorQuery | null {
    if (query.after === null && !query.meta.next) return null;
    if (query.sort.some((sort) => sort.hops !== undefined)) {
      throw invalidQuery('A sort across relations cannot be paged by cursor; use "offset" or "page".', {
        reason: 'INVALID_CURSOR',
      });
    }
    const keyset = keysetOf(query.sort, collection);
    if (keyset === null) {
      throw invalidQuery(
        `Collection "${collection.name}" has no primary key to page by cursor; use "offset" or "page".`,
        { reason: 'INVALID_CURSOR' },
      );
    }
    return { collection, keyset, filter: query.filter, search: query.search };
  }
}

const fieldName = ({ field }: SortField) => field;
