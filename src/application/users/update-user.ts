import type { Accountability } from '../../domain/accountability.ts';
import { Email } from '../../domain/email.ts';
import { notFound } from '../../domain/errors.ts';
import { assertAcceptablePassword } from '../../domain/password.ts';
import { User, type UserChanges, type UserStatus } from '../../domain/user.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { LastAdminGuard } from '../last-admin-guard.ts';
import type { Clock } from '../ports/clock.ts';
import type { PasswordHasher } from '../ports/password-hasher.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { parsePersonName } from './person-name.ts';
import { assertRoleExists, staticTokenDigest } from './user-fields.ts';
import { type UserView, viewUser } from './user-view.ts';

export type UpdateUserCommand = {
  email?: string;
  password?: string;
  role?: string | null;
  status?: UserStatus;
  first_name?: string | null;
  last_name?: string | null;
  token?: string | null;
};

export type UpdateUserRequest = { id: string; changes: UpdateUserCommand };

/** Changes a user; a new password or a suspension ends every session of that user at once. */
export class UpdateUserHandler implements Handler<UpdateUserRequest, UserView> {
  constructor(
    private readonly users: UserRepository,
    private readonly roles: RoleRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly lastAdmin: LastAdminGuard,
  ) {}

  async execute(caller: Accountability, { id, changes: command }: UpdateUserRequest): Promise<UserView> {
    requireAdmin(caller);
    const user = await this.users.findById(id);
    if (!user) throw notFound('User');
    const changes: UserChanges = {};
    if (command.email !== undefined) changes.email = Email.parse(command.email).value;
    if (command.role !== undefined) {
      await assertRoleExists(this.roles, command.role);
      changes.roleId = command.role;
    }
    if (command.first_name !== undefined)
      changes.firstName = parsePersonName('first_name', command.first_name);
    if (command.last_name !== undefined) changes.lastName = parsePersonName('last_name', command.last_name);
    if (command.token !== undefined) changes.tokenDigest = staticTokenDigest(command.token);
    if (command.status !== undefined) changes.status = command.status;
    if (command.password !== undefined) {
      assertAcceptablePassword(command.password);
      changes.passwordHash = await this.hasher.hash(command.password);
    }
    await this.lastAdmin.assertUserChangeKeepsAnAdmin(user.id, new User({ ...user, ...changes }));
    // Only the members given are written; a user deleted since it was read stays deleted.
    const updated = await this.users.update(
      user.id,
      changes,
      systemActivity(caller, 'update', 'datagate_users', user.id),
    );
    if (!updated) throw notFound('User');
    if (command.password !== undefined || changes.status === 'suspended') {
      await this.refreshTokens.revokeUser(user.id, this.clock.now());
    }
    return viewUser(updated);
  }
}
