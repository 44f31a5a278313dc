import type { Role } from '../../domain/role.ts';

export type RoleView = { id: string; name: string; description: string | null; admin_access: boolean };

export function viewRole(role: Role): RoleView {
  return { id: role.id, name: role.name, description: role.description, admin_access: role.adminAccess };
}
