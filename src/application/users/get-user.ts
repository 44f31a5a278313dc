import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { type UserView, viewUser } from './user-view.ts';

export class GetUserHandler {
  constructor(private readonly users: UserRepository) {}

  async execute(caller: Accountability, id: string): Promise<UserView> {
    requireAdmin(caller);
    const user = await this.users.findById(id);
    if (!user) throw notFound('User');
    return viewUser(user);
  }
}
