import { z } from 'zod';
import { MAX_SEARCH_LENGTH, type QueryLimits } from '../../../domain/query/parse-item-query.ts';

/**
 * The item query parameters of docs/api.md §4 with this server's limits, one per key; the document lists
 * them for the item reads (all) and writes (`fields`). A parameter added to `listParameters` appears in the
 * document.
 */
export function itemQueryParameters(limits: QueryLimits): ItemQueryParameters {
  // Made once per set of limits, so that their written schemas are found again (document-schemas.ts).
  const key = `${limits.limitDefault} ${limits.limitMax}`;
  let parameters = MADE.get(key);
  if (!parameters) {
    const list = listParameters(limits);
    parameters = { list, single: list.pick({ fields: true, deep: true }) };
    MADE.set(key, parameters);
  }
  return parameters;
}

/**
 * `list`: those of a list; `single`: `fields` (and `deep` for the relations it expands), which shape what a
 * single read or a write answers.
 */
export type ItemQueryParameters = { list: z.ZodObject; single: z.ZodObject };

const MADE = new Map<string, ItemQueryParameters>();

function listParameters({ limitDefault, limitMax }: QueryLimits) {
  const limit =
    limitMax === -1
      ? z.int().min(-1).describe('Page size; -1 = every row.')
      : z.int().min(0).max(limitMax).describe('Page size.');
  return z.object({
    fields: z
      .string()
      .meta({
        examples: ['*', 'id,description', 'id,json(metadata, tags[0])', 'id,post.title', '*.*', 'comments.*'],
      })
      .describe(
        'Comma list of fields to return; `*` is every field you may read (never relations); `json(field, path)` is the value at `path` inside a json field, answered as `{field}_{path}_json`. Relations nest: `post.title` (many-to-one: an object, or null), `comments.*` (one-to-many: an array of objects), `comments` alone (their primary keys), `*.*` (every relation one level deeper); at most `maxRelationalDepth` relations per path.',
      )
      .optional(),
    deep: z
      .string()
      .meta({ examples: ['{"comments":{"_filter":{"likes":{"_gt":5}},"_sort":"-likes","_limit":10}}'] })
      .describe(
        "Per one-to-many relation expanded by `fields`, as JSON or in bracket form (`deep[comments][_limit]=10`): `_filter`, `_sort`, `_limit` (default and maximum as a list's), `_offset`; relations below nest (`deep[posts][comments][_limit]=2`).",
      )
      .optional(),
    filter: z
      .string()
      .describe(
        'A JSON filter (`{"temperature":{"_gt":10}}`); the bracket form `filter[temperature][_gt]=10` works too. Across relations: `{"post":{"author":{"name":{"_eq":"Ada"}}}}` (many-to-one), `{"comments":{"_some":{"likes":{"_gt":5}}}}` or `_none` (one-to-many).',
      )
      .optional(),
    sort: z
      .string()
      .meta({ examples: ['-date_created,id', '-post.author.name'] })
      .describe(
        'Comma list of fields; `-` sorts descending; `post.title` sorts by a field of a many-to-one relation (a row you may not read sorts as null; no cursor paging).',
      )
      .optional(),
    limit: limit.default(limitDefault),
    offset: z.int().min(0).describe('Rows to skip (not with `page`).').optional(),
    page: z.int().min(1).describe('The 1-based page of `limit` rows (not with `offset`).').optional(),
    search: z
      .string()
      .max(MAX_SEARCH_LENGTH)
      .describe('Case-insensitive text to find in the text fields you may read.')
      .optional(),
    meta: z
      .string()
      .meta({ examples: ['*', 'next', 'estimated_filter_count'] })
      .describe(
        "Comma list of what to add: `total_count`, `filter_count`, `*` (both), `estimated_total_count`, `estimated_filter_count` (the planner's estimates), `next` (the cursor of the next page).",
      )
      .optional(),
    aggregate: z
      .string()
      .meta({ examples: ['{"count":["*"]}', '{"avg":["temperature"],"max":["date_created"]}'] })
      .describe(
        'Groups instead of items (docs/api.md §4b): a JSON object of function → fields (`count`, `countDistinct`, `countAll`, `sum`, `sumDistinct`, `avg`, `avgDistinct`, `min`, `max`; `*` counts rows); the bracket form `aggregate[count]=*` works too. Not with `fields`, `meta` or `after`.',
      )
      .optional(),
    groupBy: z
      .string()
      .meta({ examples: ['site', 'year(date_created),site'] })
      .describe(
        'Comma list of fields, or date parts of date/time fields (`year`, `month`, `week`, `day`, `weekday`, `hour`, `minute`, `second`: `year(date_created)`, answered as `date_created_year`), to group by.',
      )
      .optional(),
    export: z
      .enum(['csv', 'json', 'ndjson'])
      .describe(
        'Answer the items as a file to download instead (docs/api.md §13): every row the query gives, streamed (no `limit` means all of them; `meta` is ignored), as `text/csv`, a JSON array (`application/json`) or one item per line (`application/x-ndjson`), with `Content-Disposition: attachment`. Not with `aggregate` or `groupBy`.',
      )
      .optional(),
    escape_formulas: z
      .enum(['true', 'false'])
      .describe(
        "With `export=csv`: `true` writes a text starting with `=`, `+`, `-`, `@`, tab or CR with a leading `'`, so that a spreadsheet shows it instead of running it as a formula (docs/api.md §13). Such a file does not import back the same; the default is `false`.",
      )
      .optional(),
    after: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .describe(
        "A cursor from the previous page's `next`: the rows after it, same filter, search and sort (not with `offset` or `page`).",
      )
      .optional(),
  });
}
