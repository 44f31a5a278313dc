import { invalidQuery } from './invalid-query.ts';
import type { RawItemQuery } from './parse-item-query.ts';

/** Every parameter a list of items reads (docs/api.md §4, §4b, §13), the Directus ones it refuses included. */
const LIST_PARAMETERS = [
  'fields',
  'filter',
  'sort',
  'limit',
  'offset',
  'page',
  'search',
  'meta',
  'after',
  'deep',
  'aggregate',
  'groupBy',
  'export',
  'alias',
  'version',
] as const;

/**
 * A SEARCH takes its query from the body alone, as Directus's does. A list parameter in its URL as well
 * (`SEARCH /items/cargos?filter=…` with `{"query":{"limit":10}}`) would be dropped, answering rows the
 * filter was meant to keep out, so it is refused; `access_token` and unknown parameters stay ignored
 * (docs/decisions/0074-search-reads-its-query-from-the-body-only.md).
 */
export function refuseListParametersInSearchUrl(url: RawItemQuery): void {
  for (const name of LIST_PARAMETERS) {
    if (!Object.hasOwn(url, name)) continue;
    throw invalidQuery(`A SEARCH reads its query from the body: put "${name}" in "query", not in the URL.`, {
      reason: 'UNSUPPORTED_PARAMETER',
      field: name,
    });
  }
}

/**
 * An export is a download of GET /items/:collection?export=… (§13); in a SEARCH body it would be
 * answered as a page of JSON, whatever format was asked for, so it is refused.
 */
export function refuseExportInSearchBody(query: RawItemQuery): void {
  if (!Object.hasOwn(query, 'export')) return;
  throw invalidQuery('An export is a GET with "?export=…"; a SEARCH answers a page, not a file.', {
    reason: 'UNSUPPORTED_PARAMETER',
    field: 'export',
  });
}
