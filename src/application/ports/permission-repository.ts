import type { Permission, PermissionAction } from '../../domain/permissions/permission.ts';

export interface PermissionRepository {
  findById(id: string): Promise<Permission | null>;
  list(): Promise<Permission[]>;
  /** The permissions of one role (null = public) for one collection and action. */
  listFor(role: string | null, collection: string, action: PermissionAction): Promise<Permission[]>;
  save(permission: Permission): Promise<void>;
  /** Returns false when there was no such permission. */
  delete(id: string): Promise<boolean>;
}
