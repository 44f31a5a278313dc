export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * False for a wrong password and for a malformed hash; never throws on user input.
   * With `hash: null` (no such user) it spends the same time as a real verification and returns false,
   * so response timing does not reveal which e-mail addresses exist.
   */
  verify(hash: string | null, password: string): Promise<boolean>;
}
