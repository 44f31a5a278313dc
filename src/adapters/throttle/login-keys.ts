import { createHmac, hkdfSync } from 'node:crypto';
import type { LoginAttempt } from '../../application/ports/login-throttle.ts';

/**
 * The store keys of a login attempt: HMAC-SHA256 digests under a key derived from the server secret.
 * The e-mail may be any text the client sent (and the address, behind a trusted proxy, any
 * `X-Forwarded-For` text), while the PostgreSQL store keys are varchar(255); no e-mail or address is
 * stored in clear; and, keyed, a digest kept for weeks (a remembered login) cannot be matched against a
 * list of e-mails and the few billion IPv4 addresses by someone who reads the table but not the secret.
 * Encoding the pair as JSON before hashing keeps ("a|b", "c") apart from ("a", "b|c").
 */
export class LoginKeys {
  private readonly key: Buffer;

  constructor(secret: string) {
    // Its own key, not the secret itself, so these digests can never stand in for a signature.
    this.key = Buffer.from(hkdfSync('sha256', secret, '', 'datagate login throttle keys', 32));
  }

  emailAndAddress(attempt: LoginAttempt): string {
    return this.digest(JSON.stringify([attempt.email, attempt.clientAddress]));
  }

  address(attempt: LoginAttempt): string {
    return this.digest(JSON.stringify(attempt.clientAddress));
  }

  private digest(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}
