import { randomUUID } from 'node:crypto';
import { Email } from '../../domain/email.ts';
import { DomainError, invalidCredentials, userSuspended } from '../../domain/errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { PasswordHasher } from '../ports/password-hasher.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import type { TokenPair, TokenPairIssuer } from './token-pair.ts';

export type LoginCommand = { email: string; password: string };

export class LoginHandler {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly pairs: TokenPairIssuer,
    private readonly clock: Clock,
  ) {}

  async execute(command: LoginCommand): Promise<TokenPair> {
    const email = parseEmailOrNull(command.email);
    const user = email ? await this.users.findByEmail(email) : null;
    // Always one verification, against a dummy hash when there is no user: same answer, same time.
    const passwordMatches = await this.hasher.verify(user?.passwordHash ?? null, command.password);
    if (!user || !passwordMatches) throw invalidCredentials();
    if (!user.isActive) throw userSuspended();
    return this.pairs.issue(user, randomUUID(), this.clock.now());
  }
}

function parseEmailOrNull(raw: string): string | null {
  try {
    return Email.parse(raw).value;
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}
