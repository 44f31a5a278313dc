import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SuccessorSeal } from '../../src/application/auth/successor-seal.ts';
import type { TokenPair } from '../../src/application/auth/token-pair.ts';

const SECRET = 'successor-seal-test-secret-0123456789abcdef';
const SPENT = 'the-spent-refresh-token-0123456789abcdefghij';
const PAIR: TokenPair = {
  accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl',
  expires: 1_795_439_498_000,
  refreshToken: 'the-successor-refresh-token-0123456789abcdef',
};

test('a sealed pair opens with the spent token it was sealed for, whole', () => {
  const seal = new SuccessorSeal(SECRET);
  assert.equal(seal.open(seal.seal(PAIR, SPENT), SPENT), PAIR);
});

test('the sealed text reveals neither token of the pair', () => {
  const sealed = new SuccessorSeal(SECRET).seal(PAIR, SPENT);
  for (const secret of [PAIR.accessToken, PAIR.refreshToken, SPENT]) assert.not.ok(sealed.includes(secret));
  const decoded = Buffer.from(sealed, 'base64url').toString('latin1');
  for (const secret of [PAIR.accessToken, PAIR.refreshToken]) assert.not.ok(decoded.includes(secret));
});

test('another token, another server secret or altered bytes open nothing', () => {
  const seal = new SuccessorSeal(SECRET);
  const sealed = seal.seal(PAIR, SPENT);
  assert.is(seal.open(sealed, `${SPENT}x`), null);
  assert.is(new SuccessorSeal(`${SECRET}x`).open(sealed, SPENT), null);
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[20] = (bytes[20] ?? 0) ^ 1;
  assert.is(seal.open(bytes.toString('base64url'), SPENT), null);
  assert.is(seal.open('', SPENT), null);
  assert.is(seal.open('not base64url at all!', SPENT), null);
});

test('sealing twice gives different texts (a fresh nonce each time)', () => {
  const seal = new SuccessorSeal(SECRET);
  assert.is.not(seal.seal(PAIR, SPENT), seal.seal(PAIR, SPENT));
});

test.run();
