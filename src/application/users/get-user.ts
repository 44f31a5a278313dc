import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { type UserView, viewUser } from './user-view.ts';

export class GetUserHandler implements Handler<{ id: string }, UserView> {
  constructor(private readonly users: UserRepository) {}

  async execute(caller: Accountability, { id }: { id: string }): Promise<UserView> {
    requireAdmin(caller);
    const user = await this.users.findById(id);
    if (!user) throw notFound('User');
    return viewUser(user);
  }
}
