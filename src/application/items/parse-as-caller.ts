import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import type { QueryWitness } from '../../domain/query/hop-of.ts';
import { type CollectionSchema, fieldOf } from '../../domain/schema/collection-schema.ts';
import type { ReadRules } from './read-rules.ts';

/**
 * Parses a query for `caller` so that a refusal says nothing about what the caller may not read
 * (docs/api.md §4, permissions at every hop). The parser knows the whole schema: a path into a collection
 * the caller may not read naming a field it lacks (`shipment.customer.nmae`), a name that is not a
 * relation there, or a value that does not fit a field's type would be 400 where a correct path is 403 —
 * telling the caller the names and types of what it may not read. So would an operator, a value, a
 * `json()` path, a sort or an aggregate that does not fit a field the caller may read on no row
 * (`filter[salary][_eq]=abc` telling that `salary` is a number, or an enum's labels one by one). Such a
 * refusal is the 403 of the first hidden collection or field the query names, in the order it is parsed,
 * as a correct query naming it hears.
 *
 * Only a refused query pays: it is parsed again, witnessing the relations its paths cross and the fields
 * whose types it looks at, and the caller's rule on each collection is looked up then. A query that
 * parses is checked hop by hop by RelationalRead.
 */
export async function parseAsCaller<T>(
  rules: ReadRules,
  caller: Accountability,
  now: Date,
  parse: (witness?: QueryWitness) => T,
): Promise<T> {
  try {
    return parse();
  } catch (error) {
    if (caller.admin || !(error instanceof DomainError) || error.code !== 'INVALID_QUERY') throw error;
    const named: Array<{ path: string; collection: CollectionSchema; field?: string }> = [];
    try {
      parse({
        crossed: (path, hop) => named.push({ path, collection: hop.collection }),
        named: (path, collection, field) => named.push({ path, collection, field }),
      });
    } catch {
      // The same refusal, met again after the same names.
    }
    for (const { path, collection, field } of named) {
      const rule = await rules.optional(caller, collection, now);
      if (rule === null || (field !== undefined && !rule.fields.has(field))) throw refusal(caller, path);
    }
    throw error;
  }
}

/**
 * `parseAsCaller` for a query parsed without relations (realtime subscriptions, the filter of a write by
 * query), whose every name is a field of `collection`: a refusal naming a field the caller may read on no
 * row is that field's 403, so that an operator or a value that does not fit it tells nothing of its type.
 */
export function parseFlatAsCaller<T>(
  caller: Accountability,
  collection: CollectionSchema,
  rule: ReadRule,
  parse: () => T,
): T {
  try {
    return parse();
  } catch (error) {
    if (caller.admin || !(error instanceof DomainError) || error.code !== 'INVALID_QUERY') throw error;
    const { field } = error.extensions;
    if (field !== undefined && fieldOf(collection, field) && !rule.fields.has(field)) {
      throw refusal(caller, field);
    }
    throw error;
  }
}
