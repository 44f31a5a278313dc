import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import { type RoleView, viewRole } from './role-view.ts';

export class ListRolesHandler implements Handler<void, RoleView[]> {
  constructor(private readonly roles: RoleRepository) {}

  async execute(caller: Accountability): Promise<RoleView[]> {
    requireAdmin(caller);
    return (await this.roles.list()).map(viewRole);
  }
}
