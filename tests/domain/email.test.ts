import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Email } from '../../src/domain/email.ts';

test('an e-mail is trimmed and lower-cased', () => {
  assert.is(Email.parse('  Ada.Lovelace@Example.COM ').value, 'ada.lovelace@example.com');
});

test('an e-mail is in Unicode NFC: a decomposed accent is the same address as the composed one', () => {
  assert.is(Email.parse('Jose\u0301@Example.com').value, 'jos\u00e9@example.com');
  assert.is(Email.parse('jos\u00e9@example.com').value, 'jos\u00e9@example.com');
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
    // Invisible format characters: each makes an address that reads as another one.
    'admin\u200b@example.com',
    'ad\u00admin@example.com',
    'ad\u202emin@example.com',
    'admin@example.com\u2060',
    '\u2066admin\u2069@example.com',
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
