import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Email } from '../../src/domain/email.ts';

test('an e-mail is trimmed and lower-cased', () => {
  assert.is(Email.parse('  Ada.Lovelace@Example.COM ').value, 'ada.lovelace@example.com');
});

test('malformed or oversized addresses are refused as FAILED_VALIDATION on the field', () => {
  for (const raw of [
    '',
    'ada',
    'ada@',
    '@example.com',
    'a b@example.com',
    'ada@example',
    `${'a'.repeat(250)}@x.io`,
    'ad\u0001a@example.com',
    'ada@exa\u007fmple.com',
    'ada@example.c\u0085om',
    'ada\u001b[31m@example.com',
  ]) {
    assert.throws(
      () => Email.parse(raw),
      (error: { code: string; extensions: { field: string } }) =>
        error.code === 'FAILED_VALIDATION' && error.extensions.field === 'email',
      raw,
    );
  }
});

test.run();
