import type { Permission, PermissionAction } from '../../domain/permissions/permission.ts';
import type { SystemPage, SystemQuery } from './system-query.ts';

export interface PermissionRepository {
  findById(id: string): Promise<Permission | null>;
  list(): Promise<Permission[]>;
  /** The permissions a list query selects, in one statement where there is a database (system-query.ts). */
  query(query: SystemQuery): Promise<SystemPage<Permission>>;
  /** The permissions of one role (null = public) for one collection and action. */
  listFor(role: string | null, collection: string, action: PermissionAction): Promise<Permission[]>;
  save(permission: Permission): Promise<void>;
  /** Returns false when there was no such permission. */
  delete(id: string): Promise<boolean>;
}
