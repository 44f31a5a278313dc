import type { Accountability } from '../../domain/accountability.ts';
import type { ActivityEntry } from '../ports/activity-log.ts';

/** The system areas whose changes are recorded, as `collection` names them (docs/api.md §14). */
export type SystemArea =
  | 'datagate_users'
  | 'datagate_roles'
  | 'datagate_permissions'
  | 'datagate_collections'
  | 'datagate_fields';

/**
 * The activity entry of a change to a system area, which the repository or schema editor making the
 * change records in the change's own transaction (docs/decisions/0033), or of an admin's preview of a
 * role, which changes nothing and is recorded on its own. It names the record only, never its values: no
 * password, token or hash can reach it.
 */
export function systemActivity(
  caller: Accountability,
  action: 'create' | 'update' | 'delete' | 'preview',
  collection: SystemArea,
  item: string,
): ActivityEntry {
  return {
    action,
    user: caller.user,
    ip: caller.origin?.ip ?? null,
    userAgent: caller.origin?.userAgent ?? null,
    origin: caller.origin?.origin ?? null,
    collection,
    item,
  };
}
