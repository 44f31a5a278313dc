import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { assertKeyQueryable, projectFields } from '../../domain/permissions/readable-fields.ts';
import { coerceKey } from '../../domain/query/coerce-value.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemStore } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { collectionFor, type SystemReach, USER_COLLECTIONS_ONLY } from './collection-access.ts';
import { ItemQueryMemo } from './item-query-memo.ts';
import { parseAsCaller } from './parse-as-caller.ts';
import type { ReadRules } from './read-rules.ts';
import { RelationalRead, selectionOf } from './relational-read.ts';
import { withFreshSchema } from './with-fresh-schema.ts';

export type GetItemQuery = { collection: string; id: string; query: RawItemQuery };

/**
 * GET /items/:collection/:key — the item as JSON text. Missing, invisible and malformed ids are the
 * same 404, so the answer never tells which ids exist. An item whose JSON text would exceed
 * `responseMaxBytes` is refused (RESPONSE_TOO_LARGE): fewer `fields` may fit.
 */
export class GetItemHandler {
  /** Queries parsed with the configured limits (item-query-memo.ts). */
  private readonly queries: ItemQueryMemo;

  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly items: ItemStore,
    private readonly clock: Clock,
    limits: QueryLimits,
    private readonly responseMaxBytes: number,
    private readonly reach: SystemReach = USER_COLLECTIONS_ONLY,
  ) {
    this.queries = new ItemQueryMemo(limits);
  }

  execute(caller: Accountability, request: GetItemQuery): Promise<string> {
    return withFreshSchema(this.catalog, () => this.read(caller, request));
  }

  private async read(caller: Accountability, request: GetItemQuery): Promise<string> {
    const collection = collectionFor(this.catalog, caller, request.collection, this.reach);
    const now = this.clock.now();
    const rule = await this.rules.for(caller, collection, now);
    const query = await parseAsCaller(this.rules, caller, now, (witness) =>
      this.queries.parse(selectionOf(request.query), collection, this.catalog.current(), witness),
    );
    const select = query.relational
      ? (await RelationalRead.start(this.rules, caller, query, now)).select(rule, query)
      : projectFields(caller, rule, query.fields);
    assertKeyQueryable(caller, rule, collection);
    const keyField = collection.primaryKey === null ? undefined : fieldOf(collection, collection.primaryKey);
    const id = keyField ? coerceKey(keyField, request.id) : null;
    if (id === null) throw notFound();
    const item = await this.items.get({
      collection,
      work: caller.work,
      select,
      visible: rule.rows,
      id,
      maxBytes: this.responseMaxBytes,
    });
    if (item === null) throw notFound();
    return item;
  }
}
