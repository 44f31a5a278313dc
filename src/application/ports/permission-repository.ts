import type { Permission, PermissionAction } from '../../domain/permissions/permission.ts';
import type { ActivityEntry } from './activity-log.ts';
import type { SystemPage, SystemQuery } from './system-query.ts';

export interface PermissionRepository {
  findById(id: string): Promise<Permission | null>;
  list(): Promise<Permission[]>;
  /** The permissions a list query selects, in one statement where there is a database (system-query.ts). */
  query(query: SystemQuery): Promise<SystemPage<Permission>>;
  /** The permissions of one role (null = public) for one collection and action. */
  listFor(role: string | null, collection: string, action: PermissionAction): Promise<Permission[]>;
  /** `activity`, when given, is recorded in the same transaction (docs/decisions/0033). */
  save(permission: Permission, activity?: ActivityEntry): Promise<void>;
  /**
   * Changes an existing permission: `change` is given it as stored and answers it changed (or throws, and
   * nothing is written), while every other change of it waits, so two changes at once each keep the other's
   * and each is checked against the permission it turns into. Answers the permission as written; null when
   * there is none (deleted since: a change never brings a permission back), and then records nothing.
   */
  update(
    id: string,
    change: (stored: Permission) => Promise<Permission>,
    activity?: ActivityEntry,
  ): Promise<Permission | null>;
  /**
   * Returns false when there was no such permission (and records nothing); otherwise `activity`, when
   * given, is recorded in the same transaction.
   */
  delete(id: string, activity?: ActivityEntry): Promise<boolean>;
}
