import type { Accountability } from '../../domain/accountability.ts';
import {
  assertFieldsQueryable,
  assertFilterQueryable,
  projectFields,
  queryableFields,
} from '../../domain/permissions/readable-fields.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { searchFilter } from '../../domain/query/search-filter.ts';
import { TEXTUAL_TYPES } from '../../domain/schema/field-type.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemListResult, ItemStore } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { collectionFor } from './collection-access.ts';
import type { ReadRules } from './read-rules.ts';
import { withFreshSchema } from './with-fresh-schema.ts';

export type ListItemsQuery = { collection: string; query: RawItemQuery };

/**
 * GET /items/:collection — the rows and fields the caller may see, in one store call. A page whose JSON
 * text would exceed `responseMaxBytes` is refused (RESPONSE_TOO_LARGE) rather than built.
 */
export class ListItemsHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly items: ItemStore,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
    private readonly responseMaxBytes: number,
  ) {}

  execute(caller: Accountability, request: ListItemsQuery): Promise<ItemListResult> {
    return withFreshSchema(this.catalog, () => this.read(caller, request));
  }

  private async read(caller: Accountability, request: ListItemsQuery): Promise<ItemListResult> {
    const collection = collectionFor(this.catalog, caller, request.collection);
    const now = this.clock.now();
    const rule = await this.rules.for(caller, collection, now);
    const query = parseItemQuery(request.query, collection, this.limits);
    const select = projectFields(caller, rule, query.fields);
    if (query.filter) assertFilterQueryable(caller, rule, query.filter);
    assertFieldsQueryable(
      caller,
      rule,
      query.sort.map((sort) => sort.field),
    );

    const conditions: BoundFilterNode[] = [];
    if (query.filter) {
      conditions.push(
        bindDynamicValues(query.filter, { user: caller.user, role: caller.role, now }, collection),
      );
    }
    if (query.search !== null) {
      // Search covers the text columns shown on every visible row; a conditionally shown one would leak.
      const queryable = new Set(queryableFields(rule));
      const searchable = collection.fields.filter(
        (field) => TEXTUAL_TYPES.has(field.type) && queryable.has(field.name),
      );
      conditions.push(searchFilter(query.search, searchable));
    }
    return this.items.list({
      collection,
      select,
      visible: rule.rows,
      filter: conditions.length === 0 ? null : allOf(conditions),
      sort: query.sort,
      limit: query.limit,
      offset: query.offset,
      count: { total: query.meta.totalCount, filtered: query.meta.filterCount },
      maxBytes: this.responseMaxBytes,
    });
  }
}
