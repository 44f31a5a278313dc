import { randomUUID } from 'node:crypto';
import type { Accountability } from '../../domain/accountability.ts';
import { Role } from '../../domain/role.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import { parseRoleDescription } from './role-description.ts';
import { parseRoleName } from './role-name.ts';
import { type RoleView, viewRole } from './role-view.ts';

export type CreateRoleCommand = { name: string; description?: string | null; admin_access?: boolean };

export class CreateRoleHandler implements Handler<CreateRoleCommand, RoleView> {
  constructor(private readonly roles: RoleRepository) {}

  async execute(caller: Accountability, command: CreateRoleCommand): Promise<RoleView> {
    requireAdmin(caller);
    const role = new Role({
      id: randomUUID(),
      name: parseRoleName(command.name),
      description: parseRoleDescription(command.description ?? null),
      adminAccess: command.admin_access ?? false,
    });
    await this.roles.save(role, systemActivity(caller, 'create', 'datagate_roles', role.id));
    return viewRole(role);
  }
}
