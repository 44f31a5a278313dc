import type { Accountability } from '../../domain/accountability.ts';
import { invalidToken } from '../../domain/errors.ts';
import { assertAcceptablePassword } from '../../domain/password.ts';
import type { UserChanges } from '../../domain/user.ts';
import { requireUser } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { PasswordHasher } from '../ports/password-hasher.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { parsePersonName } from './person-name.ts';
import { type UserView, viewUser } from './user-view.ts';

/** What any user may change about themselves; role, status, e-mail and token stay with the admin. */
export type UpdateCurrentUserCommand = {
  first_name?: string | null;
  last_name?: string | null;
  password?: string;
};

export class UpdateCurrentUserHandler implements Handler<UpdateCurrentUserCommand, UserView> {
  constructor(
    private readonly users: UserRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
  ) {}

  async execute(caller: Accountability, command: UpdateCurrentUserCommand): Promise<UserView> {
    const user = await this.users.findById(requireUser(caller));
    if (!user) throw invalidToken();
    const changes: UserChanges = {};
    if (command.first_name !== undefined)
      changes.firstName = parsePersonName('first_name', command.first_name);
    if (command.last_name !== undefined) changes.lastName = parsePersonName('last_name', command.last_name);
    if (command.password !== undefined) {
      assertAcceptablePassword(command.password);
      changes.passwordHash = await this.hasher.hash(command.password);
    }
    // Only these members are written: an admin's suspension or new role at the same moment holds.
    const updated = await this.users.update(
      user.id,
      changes,
      systemActivity(caller, 'update', 'datagate_users', user.id),
    );
    if (!updated) throw invalidToken();
    if (command.password !== undefined) await this.refreshTokens.revokeUser(user.id, this.clock.now());
    return viewUser(updated);
  }
}
