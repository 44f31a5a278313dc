import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertAcceptablePassword } from '../../src/domain/password.ts';
import { assertAcceptableStaticToken } from '../../src/domain/static-token.ts';

const refused = (check: () => void, field: string) =>
  assert.throws(
    check,
    (error: { code: string; extensions: { field: string } }) =>
      error.code === 'FAILED_VALIDATION' && error.extensions.field === field,
  );

// Characters as everywhere in the API (docs/api.md §3a): code points, so an emoji is one, not two.
test('a password is 8 to 512 characters, counted as code points', () => {
  refused(() => assertAcceptablePassword('😀'.repeat(4)), 'password');
  refused(() => assertAcceptablePassword('😀'.repeat(7)), 'password');
  assertAcceptablePassword('😀'.repeat(8));
  assertAcceptablePassword('😀'.repeat(512));
  refused(() => assertAcceptablePassword('😀'.repeat(513)), 'password');
  assertAcceptablePassword('a'.repeat(8));
  refused(() => assertAcceptablePassword('a'.repeat(7)), 'password');
  refused(() => assertAcceptablePassword('a'.repeat(513)), 'password');
});

test('a static token is 32 to 512 characters', () => {
  assertAcceptableStaticToken('a'.repeat(32));
  assertAcceptableStaticToken('a'.repeat(512));
  refused(() => assertAcceptableStaticToken('a'.repeat(31)), 'token');
  refused(() => assertAcceptableStaticToken('a'.repeat(513)), 'token');
});

test('a static token is visible ASCII only: what an Authorization header can carry', () => {
  assertAcceptableStaticToken(`${'a'.repeat(16)}!~"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}`);
  refused(() => assertAcceptableStaticToken('😀'.repeat(32)), 'token');
  refused(() => assertAcceptableStaticToken(`${'a'.repeat(32)}é`), 'token');
  refused(() => assertAcceptableStaticToken(`${'a'.repeat(16)}\n${'a'.repeat(16)}`), 'token');
  refused(() => assertAcceptableStaticToken(`${'a'.repeat(16)}\t${'a'.repeat(16)}`), 'token');
  refused(() => assertAcceptableStaticToken(`${'a'.repeat(16)} ${'a'.repeat(16)}`), 'token');
  refused(() => assertAcceptableStaticToken(`${'a'.repeat(32)}\x7f`), 'token');
});

test.run();
