import { randomUUID } from 'node:crypto';
import type { RequestOrigin } from '../../domain/accountability.ts';
import { Email } from '../../domain/email.ts';
import { DomainError, invalidCredentials, tooManyRequests, userSuspended } from '../../domain/errors.ts';
import type { User } from '../../domain/user.ts';
import { recordSessionActivity } from '../activity/session-activity.ts';
import type { Handler } from '../handler.ts';
import type { ActivityLog } from '../ports/activity-log.ts';
import type { Clock } from '../ports/clock.ts';
import type { LoginThrottle } from '../ports/login-throttle.ts';
import { type Metrics, NO_METRICS } from '../ports/metrics.ts';
import type { PasswordHasher } from '../ports/password-hasher.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import type { TokenPair, TokenPairIssuer } from './token-pair.ts';

export type LoginCommand = {
  email: string;
  password: string;
  /** The client's network address, as the HTTP adapter sees it (throttling key). */
  clientAddress: string;
  /** Where the request came from, for the activity entry of a successful login (docs/api.md §14). */
  origin?: RequestOrigin;
};

export class LoginHandler implements Handler<LoginCommand, TokenPair, null> {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly pairs: TokenPairIssuer,
    private readonly clock: Clock,
    private readonly throttle: LoginThrottle,
    private readonly metrics: Pick<Metrics, 'loginAttempted'> = NO_METRICS,
    private readonly activity?: ActivityLog,
  ) {}

  async execute(_caller: null, command: LoginCommand): Promise<TokenPair> {
    const email = parseEmailOrNull(command.email);
    const attempt = {
      email: email ?? command.email.trim().toLowerCase(),
      clientAddress: command.clientAddress,
    };
    const waitMs = await this.throttle.admit(attempt);
    if (waitMs > 0) {
      this.metrics.loginAttempted('throttled');
      throw tooManyRequests(waitMs / 1000);
    }
    const user = email ? await this.users.findByEmail(email) : null;
    // Always one verification, against a dummy hash when there is no user: same answer, same time.
    const passwordMatches = await this.hasher.verify(user?.passwordHash ?? null, command.password);
    if (!user || !passwordMatches) {
      this.metrics.loginAttempted('failure');
      throw invalidCredentials();
    }
    // The right password, even of a suspended user, is no guess to count; it also makes the login recent,
    // which takes this e-mail at this address out of the address budget (proof of the password, not of
    // the e-mail's existence: failures are counted alike for known and unknown e-mails).
    await this.throttle.succeeded(attempt);
    if (!user.isActive) {
      this.metrics.loginAttempted('failure');
      throw userSuspended();
    }
    const pair = await this.pairs.issue(user, randomUUID(), this.clock.now());
    if (!pair) {
      this.metrics.loginAttempted('failure');
      throw await this.refusalSinceVerified(user);
    }
    this.metrics.loginAttempted('success');
    await recordSessionActivity(this.activity, 'login', user.id, command.origin);
    return pair;
  }

  /**
   * Why a login whose password was right is refused after all: the user was suspended, given a new
   * password or deleted while the password was being checked, which ended every session of theirs.
   */
  private async refusalSinceVerified(verified: User): Promise<DomainError> {
    const current = await this.users.findById(verified.id);
    const samePassword = current?.passwordHash === verified.passwordHash;
    return samePassword && !current?.isActive ? userSuspended() : invalidCredentials();
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
