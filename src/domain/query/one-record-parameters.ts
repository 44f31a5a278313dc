import { invalidQuery } from './invalid-query.ts';
import { type RawItemQuery, UNSUPPORTED_PARAMETERS } from './parse-item-query.ts';

/**
 * List parameters that would change what a read of one answers: Directus applies `filter` and `search` to
 * its reads by key, answering 403 when the record does not match, and `aggregate` and `groupBy`, answering
 * the groups of that one record instead of it (§4b).
 */
const LIST_ONLY_PARAMETERS = ['filter', 'search', 'aggregate', 'groupBy'] as const;

/**
 * Refuses, on a read of one record (an item, a user, a role…) and on a write's answer, the parameters that
 * would make it another question than the one answered: the list parameters above, and those a list
 * refuses too (`alias`, `version`). Ignored, they would answer the record whatever it holds (docs/api.md
 * §4). Paging, sorting and counting parameters mean nothing for one record and stay ignored, as unknown
 * parameters are; so does an empty value, which asks nothing.
 */
export function refuseOneRecordParameters(raw: RawItemQuery): void {
  for (const name of [...LIST_ONLY_PARAMETERS, ...UNSUPPORTED_PARAMETERS]) {
    const value = Object.hasOwn(raw, name) ? raw[name] : undefined;
    if (value === undefined || value === '') continue;
    const message = (LIST_ONLY_PARAMETERS as ReadonlyArray<string>).includes(name)
      ? `The "${name}" parameter applies to lists, not to one record or a write's answer.`
      : `The "${name}" parameter is not supported.`;
    throw invalidQuery(message, { reason: 'UNSUPPORTED_PARAMETER', field: name });
  }
}
