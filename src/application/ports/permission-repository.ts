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
   * Changes an existing permission, as `save` does. Returns false when there is none (deleted since it
   * was read: a change never brings a permission back), and then records nothing.
   */
  update(permission: Permission, activity?: ActivityEntry): Promise<boolean>;
  /**
   * Returns false when there was no such permission (and records nothing); otherwise `activity`, when
   * given, is recorded in the same transaction.
   */
  delete(id: string, activity?: ActivityEntry): Promise<boolean>;
}
