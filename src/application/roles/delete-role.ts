import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import type { RoleRepository } from '../ports/role-repository.ts';

export class DeleteRoleHandler {
  constructor(private readonly roles: RoleRepository) {}

  async execute(caller: Accountability, id: string): Promise<void> {
    requireAdmin(caller);
    if (!(await this.roles.delete(id))) throw notFound('Role');
  }
}
