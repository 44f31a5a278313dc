import { invalidQuery } from './invalid-query.ts';
import type { RawItemQuery } from './parse-item-query.ts';

/**
 * List parameters that would change which record a read of one answers (Directus applies `filter` and
 * `search` to its reads by key, answering 403 when the record does not match) or what it holds (`alias`).
 */
const LIST_ONLY_PARAMETERS = ['filter', 'search', 'alias'] as const;

/**
 * Refuses them on a read of one record (an item, a user, a role…) and on a write's answer, rather than
 * ignore them: ignored, they would answer another question than the one asked (docs/api.md §4). Paging,
 * sorting and counting parameters mean nothing for one record and stay ignored, as unknown parameters
 * are; so does an empty value, which asks nothing.
 */
export function refuseListOnlyParameters(raw: RawItemQuery): void {
  for (const name of LIST_ONLY_PARAMETERS) {
    const value = Object.hasOwn(raw, name) ? raw[name] : undefined;
    if (value !== undefined && value !== '') {
      throw invalidQuery(`The "${name}" parameter applies to lists, not to one record or a write's answer.`, {
        reason: 'UNSUPPORTED_PARAMETER',
        field: name,
      });
    }
  }
}
