import { failedValidation } from './errors.ts';

// Deliberately loose (one @, a dot in the domain, no spaces): strict RFC 5322 parsing rejects real addresses.
// No control or format character either (`\s` leaves out most of them: zero-width spaces and joiners, the
// soft hyphen, bidirectional overrides): no address has one, and one would be invisible where the address
// is shown, two users then looking alike.
const SHAPE = /^[^\s@\p{Cc}\p{Cf}]+@[^\s@\p{Cc}\p{Cf}]+\.[^\s@\p{Cc}\p{Cf}]+$/u;
const MAX_LENGTH = 254;

/**
 * An e-mail address as users are identified by it: trimmed, lower-cased and in Unicode NFC, so matching
 * ignores case and how an accent was typed (`é` as one code point or as `e` and a combining accent look
 * the same, and must not be two users; docs/decisions/0073-e-mail-addresses-in-nfc.md).
 */
export class Email {
  private constructor(readonly value: string) {}

  static parse(raw: string, field = 'email'): Email {
    const value = raw.trim().toLowerCase().normalize('NFC');
    if (value.length > MAX_LENGTH || !SHAPE.test(value)) {
      throw failedValidation(field, 'Value has to be a valid e-mail address.');
    }
    return new Email(value);
  }

  toString(): string {
    return this.value;
  }
}
