import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import type { UserRepository } from '../ports/user-repository.ts';

export class DeleteUserHandler {
  constructor(private readonly users: UserRepository) {}

  async execute(caller: Accountability, id: string): Promise<void> {
    requireAdmin(caller);
    if (!(await this.users.delete(id))) throw notFound('User');
  }
}
