import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import { type RoleView, viewRole } from './role-view.ts';

export class GetRoleHandler implements Handler<{ id: string }, RoleView> {
  constructor(private readonly roles: RoleRepository) {}

  async execute(caller: Accountability, { id }: { id: string }): Promise<RoleView> {
    requireAdmin(caller);
    const role = await this.roles.findById(id);
    if (!role) throw notFound('Role');
    return viewRole(role);
  }
}
