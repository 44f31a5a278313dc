import { randomUUID } from 'node:crypto';
import type { Accountability } from '../../domain/accountability.ts';
import { Email } from '../../domain/email.ts';
import { assertAcceptablePassword } from '../../domain/password.ts';
import { User, type UserStatus } from '../../domain/user.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { PasswordHasher } from '../ports/password-hasher.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { parsePersonName } from './person-name.ts';
import { assertRoleExists, staticTokenDigest } from './user-fields.ts';
import { type UserView, viewUser } from './user-view.ts';

export type CreateUserCommand = {
  email: string;
  password: string;
  role: string | null;
  status?: UserStatus;
  first_name?: string | null;
  last_name?: string | null;
  token?: string | null;
};

export class CreateUserHandler implements Handler<CreateUserCommand, UserView> {
  constructor(
    private readonly users: UserRepository,
    private readonly roles: RoleRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
  ) {}

  async execute(caller: Accountability, command: CreateUserCommand): Promise<UserView> {
    requireAdmin(caller);
    const email = Email.parse(command.email);
    assertAcceptablePassword(command.password);
    await assertRoleExists(this.roles, command.role);
    const tokenDigest = staticTokenDigest(command.token ?? null);
    const user = new User({
      id: randomUUID(),
      email: email.value,
      passwordHash: await this.hasher.hash(command.password),
      roleId: command.role,
      status: command.status ?? 'active',
      firstName: parsePersonName('first_name', command.first_name ?? null),
      lastName: parsePersonName('last_name', command.last_name ?? null),
      tokenDigest,
      createdAt: this.clock.now(),
    });
    await this.users.save(user, systemActivity(caller, 'create', 'datagate_users', user.id));
    return viewUser(user);
  }
}
