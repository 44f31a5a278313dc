import type { Accountability } from '../../domain/accountability.ts';
import { assertFieldsQueryable, assertFilterQueryable } from '../../domain/permissions/readable-fields.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import { crossesRelation } from '../../domain/query/crosses-relation.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import { parseAggregateQuery } from '../../domain/query/parse-aggregate-query.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemStore } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { collectionFor, type SystemReach, USER_COLLECTIONS_ONLY } from './collection-access.ts';
import { parseAsCaller } from './parse-as-caller.ts';
import type { ReadRules } from './read-rules.ts';
import { RelationalRead } from './relational-read.ts';
import { rowConditions } from './row-conditions.ts';
import { withFreshSchema } from './with-fresh-schema.ts';

export type AggregateItemsQuery = { collection: string; query: RawItemQuery };

/**
 * GET /items/:collection with `aggregate` / `groupBy` (docs/api.md §4b): the groups of the rows the
 * caller may see, as JSON array text, in one store call.
 *
 * Confidential by default: only rows the caller's read rule shows are aggregated, and every field
 * aggregated or grouped by must be readable on every one of them (as filter and sort fields must be),
 * because a sum or a group reveals the values of every row it covers. `count` of `*` needs only read access.
 */
export class AggregateItemsHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly items: ItemStore,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
    private readonly responseMaxBytes: number,
    private readonly reach: SystemReach = USER_COLLECTIONS_ONLY,
  ) {}

  execute(caller: Accountability, request: AggregateItemsQuery): Promise<string> {
    return withFreshSchema(this.catalog, () => this.read(caller, request));
  }

  private async read(caller: Accountability, request: AggregateItemsQuery): Promise<string> {
    const collection = collectionFor(this.catalog, caller, request.collection, this.reach);
    const now = this.clock.now();
    const rule = await this.rules.for(caller, collection, now);
    const query = await parseAsCaller(this.rules, caller, now, (witness) =>
      parseAggregateQuery(request.query, collection, this.limits, this.catalog.current(), witness),
    );
    assertFieldsQueryable(caller, rule, [
      ...query.aggregates.flatMap((term) => (term.field === null ? [] : [term.field])),
      ...query.groupBy.map((term) => term.field),
    ]);
    let filter: BoundFilterNode | null;
    if (query.filter && crossesRelation(query.filter)) {
      // Checked and bound with the caller's rule at every hop, as a list's filter (relational-read.ts).
      const relational = await RelationalRead.start(
        this.rules,
        caller,
        { fields: [], filter: query.filter },
        now,
      );
      const search = rowConditions(caller, rule, collection, { filter: null, search: query.search }, now);
      const across = relational.filter(rule, collection, query.filter);
      filter = search === null ? across : allOf([across, search]);
    } else {
      if (query.filter) assertFilterQueryable(caller, rule, query.filter);
      filter = rowConditions(caller, rule, collection, query, now);
    }
    return this.items.aggregate({
      collection,
      work: caller.work,
      aggregates: query.aggregates,
      groupBy: query.groupBy,
      visible: rule.rows,
      filter,
      sort: query.sort,
      limit: query.limit,
      offset: query.offset,
      maxBytes: this.responseMaxBytes,
    });
  }
}
