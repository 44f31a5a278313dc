import type { Accountability } from '../../domain/accountability.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import type { SchemaSnapshot } from '../../domain/schema/collection-schema.ts';
import type { Relation } from '../../domain/schema/relation.ts';
import type { ReadRules } from '../items/read-rules.ts';

/**
 * The relations a caller may see (docs/api.md §7a): all of them for admins; for others, those whose two
 * collections they may read and whose foreign-key field they may read — as Directus filters its own list.
 * A relation is a fact about data the caller could not otherwise see, so this never shows more than reading
 * the foreign-key field would.
 */
export async function visibleRelations(
  caller: Accountability,
  snapshot: SchemaSnapshot,
  relations: ReadonlyArray<Relation>,
  rules: ReadRules,
  now: Date,
): Promise<Relation[]> {
  if (caller.admin) return [...relations];
  const known = new Map<string, ReadRule | null>();
  const ruleOf = async (name: string): Promise<ReadRule | null> => {
    if (!known.has(name)) {
      const collection = snapshot.collections.get(name);
      known.set(name, collection ? await rules.optional(caller, collection, now) : null);
    }
    return known.get(name)!;
  };
  const visible: Relation[] = [];
  for (const relation of relations) {
    const many = await ruleOf(relation.collection);
    if (many?.fields.has(relation.field) && (await ruleOf(relation.relatedCollection)))
      visible.push(relation);
  }
  return visible;
}
