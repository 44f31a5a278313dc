import { z } from 'zod';
import type { QueryLimits } from '../../../domain/query/parse-item-query.ts';
import { itemQueryParameters } from './item-query-parameters.ts';

/**
 * The query parameters of the system lists (/users, /roles, /permissions): the items' own, less what
 * these lists refuse or ignore (keyset cursors, the planner's estimates, aggregates, `deep`: they have
 * no relations; exports; docs/api.md §6), so that the document
 * offers nothing the server answers 400 to.
 */
export function systemQueryParameters(limits: QueryLimits): SystemQueryParameters {
  // Made once per set of limits, as the items' are, so that their written schemas are found again.
  const key = `${limits.limitDefault} ${limits.limitMax}`;
  let parameters = MADE.get(key);
  if (!parameters) {
    const items = itemQueryParameters(limits);
    const list = items.list
      .omit({ after: true, aggregate: true, groupBy: true, deep: true, export: true })
      .extend({
        meta: z
          .string()
          .meta({ examples: ['*', 'total_count'] })
          .describe('Comma list of the counts to add: `total_count`, `filter_count`, or `*` (both).')
          .optional(),
      });
    parameters = { list, single: items.single.omit({ deep: true }) };
    MADE.set(key, parameters);
  }
  return parameters;
}

/** `list`: those of a list; `single`: `fields`, which the get-one endpoints take. */
export type SystemQueryParameters = { list: z.ZodObject; single: z.ZodObject };

const MADE = new Map<string, SystemQueryParameters>();
