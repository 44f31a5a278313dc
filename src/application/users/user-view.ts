import type { User, UserStatus } from '../../domain/user.ts';

/** A user as the API shows it: the password hash never leaves, a static token shows only that it exists. */
export type UserView = {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string | null;
  status: UserStatus;
  token: string | null;
};

export const MASKED_TOKEN = '**********';

export function viewUser(user: User): UserView {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    role: user.roleId,
    status: user.status,
    token: user.tokenDigest === null ? null : MASKED_TOKEN,
  };
}
