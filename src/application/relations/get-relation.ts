import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { manyToOneOf } from '../../domain/schema/relations-of.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { ReadRules } from '../items/read-rules.ts';
import type { Clock } from '../ports/clock.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { selectFields } from '../system-queries/select-fields.ts';
import { parseSystemFields } from '../system-queries/system-list-query.ts';
import { RELATIONS_COLLECTION } from './relation-query.ts';
import { viewRelation } from './relation-view.ts';
import { visibleRelations } from './visible-relations.ts';

/** The relation of one foreign-key field, by its collection and field. */
export type RelationAddress = { collection: string; field: string };

/**
 * GET /relations/:collection/:field — with `fields` as on items. Admins learn that a collection or relation
 * does not exist (404); anyone else is refused alike for a missing relation and one it may not see (403),
 * as Directus answers, so that the answer tells nothing about the schema beyond what the caller may read.
 */
export class GetRelationHandler
  implements Handler<RelationAddress & { query: RawItemQuery }, Record<string, unknown>>
{
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
  ) {}

  async execute(
    caller: Accountability,
    request: RelationAddress & { query: RawItemQuery },
  ): Promise<Record<string, unknown>> {
    const fields = parseSystemFields(request.query, RELATIONS_COLLECTION, this.limits);
    const snapshot = this.catalog.current();
    const collection = collectionFor(this.catalog, caller, request.collection);
    const relation = manyToOneOf(snapshot, collection.name, request.field);
    const [visible] = relation
      ? await visibleRelations(caller, snapshot, [relation], this.rules, this.clock.now())
      : [];
    if (!visible) throw caller.admin ? notFound('Relation') : refusal(caller);
    return selectFields(viewRelation(visible), fields);
  }
}
