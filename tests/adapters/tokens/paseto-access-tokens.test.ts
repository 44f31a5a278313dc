import { LocalProtocol, PublicProtocol } from 'paseto';
import { EncryptFactory, GenerateKeyFactory } from 'paseto/v3/local';
import { GenerateKeyPairFactory, SignFactory } from 'paseto/v4/public';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PasetoAccessTokens } from '../../../src/adapters/tokens/paseto-access-tokens.ts';
import { expectDomainError } from '../../support/expect-domain-error.ts';

const SECRET = 'paseto-test-secret-0123456789abcdef-01';
const ISSUER = 'datagate-test';
const NOW = new Date('2022-02-02T02:02:02.000Z');

const adapter = (issuer = ISSUER) => new PasetoAccessTokens({ secret: SECRET, issuer, ttlMs: 15 * 60_000 });

/** Claims our adapter would write, so a forged token differs from a real one in its key only. */
const validClaims = {
  iss: ISSUER,
  sub: 'user-1',
  role: null,
  sid: 'session-1',
  jti: 'jti-1',
  exp: '2022-02-02T02:17:02Z',
};

const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.slice('v4.public.'.length), 'base64url').subarray(0, -64).toString());

const test = suite('PasetoAccessTokens');

test('issues a v4.public token with the contract claims and RFC 3339 times', async () => {
  const { token, expiresAt } = await adapter().issue({ sub: 'user-1', role: 'r1', sid: 's1' }, NOW);
  assert.ok(token.startsWith('v4.public.'));
  const claims = payloadOf(token);
  assert.equal(Object.keys(claims).sort(), ['exp', 'iat', 'iss', 'jti', 'role', 'sid', 'sub']);
  assert.is(claims.iat, '2022-02-02T02:02:02Z');
  assert.is(claims.exp, '2022-02-02T02:17:02Z');
  assert.is(Date.parse(claims.exp), expiresAt.getTime());
  assert.match(claims.jti, /^[0-9a-f-]{36}$/);
});

test('another instance with the same secret verifies the token (restart, second server)', async () => {
  const { token, expiresAt } = await adapter().issue({ sub: 'user-1', role: null, sid: 's1' }, NOW);
  assert.equal(await adapter().verify(token, NOW), { sub: 'user-1', role: null, sid: 's1', expiresAt });
});

test('a preview token carries its claims under `preview`, with no sub or sid', async () => {
  const preview = { role: 'r1', issuer: 'admin-1', session: null };
  const claims = payloadOf((await adapter().issue({ preview }, NOW)).token);
  assert.equal(Object.keys(claims).sort(), ['exp', 'iat', 'iss', 'jti', 'preview']);
  assert.equal(claims.preview, preview);
});

test('a v4.public token signed by another key is INVALID_TOKEN', async () => {
  const v4 = new PublicProtocol(GenerateKeyPairFactory, SignFactory);
  const { secretKey } = await v4.GenerateKeyPair();
  const token = await v4.Sign(secretKey, validClaims, { now: NOW });
  await expectDomainError(adapter().verify(token, NOW), 'INVALID_TOKEN');
});

test('a v3.local token is INVALID_TOKEN and does not look like an access token', async () => {
  const v3 = new LocalProtocol(GenerateKeyFactory, EncryptFactory);
  const key = await v3.GenerateKey();
  const token = await v3.Encrypt(key, validClaims, { now: NOW });
  assert.ok(token.startsWith('v3.local.'));
  assert.not.ok(adapter().looksLikeAccessToken(token));
  await expectDomainError(adapter().verify(token, NOW), 'INVALID_TOKEN');
});

test('a token of another issuer sharing the secret is INVALID_TOKEN', async () => {
  const { token } = await adapter('someone-else').issue({ sub: 'user-1', role: null, sid: 's1' }, NOW);
  await expectDomainError(adapter().verify(token, NOW), 'INVALID_TOKEN');
});

test('a token issued more than 5 s in the verifier`s future is INVALID_TOKEN', async () => {
  const { token } = await adapter().issue({ sub: 'user-1', role: null, sid: 's1' }, NOW);
  await expectDomainError(adapter().verify(token, new Date(NOW.getTime() - 60_000)), 'INVALID_TOKEN');
});

test('a secret shorter than 32 bytes is refused at construction', () => {
  assert.throws(
    () => new PasetoAccessTokens({ secret: 'x'.repeat(31), issuer: ISSUER, ttlMs: 1000 }),
    /at least 32 bytes/,
  );
});

test.run();
