import type { PasswordHasher } from '../../../src/application/ports/password-hasher.ts';

/** Reversible on purpose: handler tests run in microseconds instead of argon2's ~100 ms per hash. */
export class FakePasswordHasher implements PasswordHasher {
  async hash(password: string) {
    return `fake$${password}`;
  }

  async verify(hash: string | null, password: string) {
    return hash === `fake$${password}`;
  }
}
