import { failedValidation } from '../../domain/errors.ts';
import { assertAcceptableStaticToken } from '../../domain/static-token.ts';
import { digestSecret } from '../auth/opaque-secret.ts';
import type { RoleRepository } from '../ports/role-repository.ts';

export async function assertRoleExists(roles: RoleRepository, roleId: string | null): Promise<void> {
  if (roleId !== null && !(await roles.findById(roleId))) {
    throw failedValidation('role', 'Role does not exist.');
  }
}

/** The stored form of a static token set through the API or the CLI. */
export function staticTokenDigest(token: string | null): string | null {
  if (token === null) return null;
  assertAcceptableStaticToken(token);
  return digestSecret(token);
}
