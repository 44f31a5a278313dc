import { randomUUID } from 'node:crypto';
import { SYSTEM_ACCOUNTABILITY } from '../../domain/accountability.ts';
import { Role } from '../../domain/role.ts';
import { newOpaqueSecret } from '../auth/opaque-secret.ts';
import type { Handler } from '../handler.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import type { CreateUserHandler } from '../users/create-user.ts';

export const ADMIN_ROLE_NAME = 'Administrator';
export const DEFAULT_ADMIN_EMAIL = 'admin@example.com';

export type BootstrapCommand = { adminEmail?: string; adminPassword?: string };

export type BootstrapResult =
  | { created: false }
  /** `generatedPassword` is set only when none was configured: the one time it can be shown. */
  | { created: true; email: string; generatedPassword: string | null };

/** Makes a fresh installation usable: an Administrator role and a first admin, only while no admin exists. */
export class BootstrapHandler implements Handler<BootstrapCommand, BootstrapResult, null> {
  constructor(
    private readonly users: UserRepository,
    private readonly roles: RoleRepository,
    private readonly createUser: CreateUserHandler,
  ) {}

  async execute(_caller: null, command: BootstrapCommand): Promise<BootstrapResult> {
    if (await this.users.anyAdminExists()) return { created: false };
    const role = await this.adminRole();
    const generatedPassword = command.adminPassword ? null : newOpaqueSecret().slice(0, 24);
    const user = await this.createUser.execute(SYSTEM_ACCOUNTABILITY, {
      email: command.adminEmail ?? DEFAULT_ADMIN_EMAIL,
      password: command.adminPassword ?? (generatedPassword as string),
      role: role.id,
    });
    return { created: true, email: user.email, generatedPassword };
  }

  private async adminRole(): Promise<Role> {
    const existing = await this.roles.findByName(ADMIN_ROLE_NAME);
    if (existing?.adminAccess) return existing;
    const role = new Role({
      id: randomUUID(),
      name: existing ? `${ADMIN_ROLE_NAME} ${randomUUID().slice(0, 8)}` : ADMIN_ROLE_NAME,
      description: 'Full access to everything.',
      adminAccess: true,
    });
    await this.roles.save(role);
    return role;
  }
}
