import type { Accountability } from '../../domain/accountability.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { ReadRules } from '../items/read-rules.ts';
import type { Clock } from '../ports/clock.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { queryRelations, type RelationPage } from './relation-query.ts';
import { viewRelation } from './relation-view.ts';
import { visibleRelations } from './visible-relations.ts';

/** `collection`: only the relations whose foreign key that collection holds (Directus's `/relations/:collection`). */
export type ListRelationsQuery = { collection?: string; query: RawItemQuery };

/**
 * GET /relations and GET /relations/:collection — the relations the caller may see, queried like items.
 * A non-admin naming a collection it may not read is refused whether or not it exists, as on /items.
 */
export class ListRelationsHandler implements Handler<ListRelationsQuery, RelationPage> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
  ) {}

  async execute(caller: Accountability, request: ListRelationsQuery): Promise<RelationPage> {
    const snapshot = this.catalog.current();
    const now = this.clock.now();
    let relations = snapshot.relations;
    if (request.collection !== undefined) {
      const collection = collectionFor(this.catalog, caller, request.collection);
      if (!caller.admin && !(await this.rules.optional(caller, collection, now))) throw refusal(caller);
      relations = relations.filter((relation) => relation.collection === collection.name);
    }
    const visible = await visibleRelations(caller, snapshot, relations, this.rules, now);
    return queryRelations(visible.map(viewRelation), request.query, caller, now, this.limits);
  }
}
