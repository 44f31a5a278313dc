import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import type { CrossingWitness } from '../../domain/query/hop-of.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ReadRules } from './read-rules.ts';

/**
 * Parses a query for `caller` so that a refusal says nothing about a collection the caller may not read
 * (docs/api.md §4, permissions at every hop). The parser knows the whole schema: a path into such a
 * collection naming a field it lacks (`shipment.customer.nmae`), a name that is not a relation there, or a
 * value that does not fit a field's type would be 400 where a correct path is 403 — telling the caller
 * the names and types of what it may not read. Such a refusal is the 403 of the first hidden collection
 * the query's paths cross, as a correct path through it hears.
 *
 * Only a refused query pays: it is parsed again, witnessing the relations its paths cross, and the
 * caller's rule on each is looked up then. A query that parses is checked hop by hop by RelationalRead.
 */
export async function parseAsCaller<T>(
  rules: ReadRules,
  caller: Accountability,
  now: Date,
  parse: (crossed?: CrossingWitness) => T,
): Promise<T> {
  try {
    return parse();
  } catch (error) {
    if (caller.admin || !(error instanceof DomainError) || error.code !== 'INVALID_QUERY') throw error;
    const crossings: Array<{ path: string; collection: CollectionSchema }> = [];
    try {
      parse((path, hop) => crossings.push({ path, collection: hop.collection }));
    } catch {
      // The same refusal, met again after the same crossings.
    }
    for (const { path, collection } of crossings) {
      if ((await rules.optional(caller, collection, now)) === null) throw refusal(caller, path);
    }
    throw error;
  }
}
