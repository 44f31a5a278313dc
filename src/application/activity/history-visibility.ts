import type { Accountability } from '../../domain/accountability.ts';
import { isQueryable } from '../../domain/permissions/readable-fields.ts';
import type { ReadRules } from '../items/read-rules.ts';
import type { HistoryVisibility, VisibleHistory } from '../ports/activity-log.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';

/**
 * What of the history a caller may see (docs/api.md §14): an admin everything; anyone else the entries
 * and revisions of the items they may read now, under their read rule as it is now, with only the fields
 * it lets them read, and the client facts (address, user agent, origin) of their own entries only: another
 * user's are that user's, not the item's. Entries of system areas (users, roles, permissions, schema,
 * logins) and of items since deleted match no readable row, so only admins see them. An entry names its item
 * by key, so a collection whose key the caller may not filter on (readable on every row it sees) shows them
 * no history, as a read by key would be refused to them (docs/decisions/0072-naming-a-row-by-key-needs-the-key-readable.md).
 */
export async function historyVisibility(
  caller: Accountability,
  catalog: SchemaCatalog,
  readRules: ReadRules,
  now: Date,
): Promise<HistoryVisibility> {
  if (caller.admin) return 'all';
  const visible: VisibleHistory[] = [];
  for (const collection of catalog.current().collections.values()) {
    if (collection.primaryKey === null) continue;
    const rule = await readRules.optional(caller, collection, now);
    if (rule && isQueryable(rule, collection.primaryKey)) visible.push({ collection, rule });
  }
  return { user: caller.user, collections: visible };
}
