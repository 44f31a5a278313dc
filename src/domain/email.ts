import { failedValidation } from './errors.ts';

// Deliberately loose (one @, a dot in the domain, no spaces): strict RFC 5322 parsing rejects real addresses.
// No control character either (`\s` leaves out most of them): no address has one, and one would be invisible
// where the address is shown, two users then looking alike.
const SHAPE = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;
const MAX_LENGTH = 254;

/** An e-mail address as users are identified by it: trimmed and lower-cased, so matching is case-insensitive. */
export class Email {
  private constructor(readonly value: string) {}

  static parse(raw: string, field = 'email'): Email {
    const value = raw.trim().toLowerCase();
    if (value.length > MAX_LENGTH || !SHAPE.test(value)) {
      throw failedValidation(field, 'Value has to be a valid e-mail address.');
    }
    return new Email(value);
  }

  toString(): string {
    return this.value;
  }
}
