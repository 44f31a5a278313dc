import { Email } from '../../domain/email.ts';
import { notFound } from '../../domain/errors.ts';
import { newOpaqueSecret } from '../auth/opaque-secret.ts';
import type { Handler } from '../handler.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { staticTokenDigest } from './user-fields.ts';

export type SetStaticTokenCommand = { email: string; token?: string };

/** The operator's way (CLI) to give a user a static token; returns the token, which is never stored. */
export class SetStaticTokenHandler implements Handler<SetStaticTokenCommand, string, null> {
  constructor(private readonly users: UserRepository) {}

  async execute(_caller: null, command: SetStaticTokenCommand): Promise<string> {
    const user = await this.users.findByEmail(Email.parse(command.email).value);
    if (!user) throw notFound('User');
    const token = command.token ?? newOpaqueSecret();
    if (!(await this.users.update(user.id, { tokenDigest: staticTokenDigest(token) })))
      throw notFound('User');
    return token;
  }
}
