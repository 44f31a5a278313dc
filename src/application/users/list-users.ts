import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { type UserView, viewUser } from './user-view.ts';

export class ListUsersHandler implements Handler<void, UserView[]> {
  constructor(private readonly users: UserRepository) {}

  async execute(caller: Accountability): Promise<UserView[]> {
    requireAdmin(caller);
    return (await this.users.list()).map(viewUser);
  }
}
