import type { Accountability } from '../../domain/accountability.ts';
import { invalidToken } from '../../domain/errors.ts';
import { requireUser } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { type UserView, viewUser } from './user-view.ts';

export class GetCurrentUserHandler implements Handler<void, UserView> {
  constructor(private readonly users: UserRepository) {}

  async execute(caller: Accountability): Promise<UserView> {
    const user = await this.users.findById(requireUser(caller));
    // Deleted between token check and now: the token no longer names anyone.
    if (!user) throw invalidToken();
    return viewUser(user);
  }
}
