import { createHmac } from 'node:crypto';
import {
  base64url,
  decodeJwt,
  decodeProtectedHeader,
  type JWTHeaderParameters,
  type JWTPayload,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JoseAccessTokens } from '../../../src/adapters/tokens/jose-access-tokens.ts';
import { expectDomainError } from '../../support/expect-domain-error.ts';

const SECRET = 'jose-test-secret-0123456789abcdef-0123';
const KEY = new TextEncoder().encode(SECRET);
const ISSUER = 'datagate-test';
const NOW = new Date('2022-02-02T02:02:02.000Z');
const NOW_S = NOW.getTime() / 1000;

const adapter = () => new JoseAccessTokens({ secret: SECRET, issuer: ISSUER, ttlMs: 15 * 60_000 });

/** Claims our adapter would write, for forging tokens that differ in one respect only. */
const validClaims = (): JWTPayload => ({
  iss: ISSUER,
  sub: 'user-1',
  role: null,
  sid: 'session-1',
  iat: NOW_S,
  exp: NOW_S + 900,
  jti: 'jti-1',
});

const sign = (
  payload: JWTPayload,
  header: JWTHeaderParameters = { alg: 'HS256', typ: 'at+jwt' },
  key = KEY,
) => new SignJWT(payload).setProtectedHeader(header).sign(key);

const test = suite('JoseAccessTokens');

test('issues an HS256 JWT with typ at+jwt and the contract claims', async () => {
  const { token, expiresAt } = await adapter().issue({ sub: 'user-1', role: 'r1', sid: 's1' }, NOW);
  const payload = decodeJwt(token);
  assert.equal(decodeProtectedHeader(token), { alg: 'HS256', typ: 'at+jwt' });
  assert.equal(Object.keys(payload).sort(), ['exp', 'iat', 'iss', 'jti', 'role', 'sid', 'sub']);
  assert.is(payload.iss, ISSUER);
  assert.is(payload.iat, NOW_S);
  assert.is(payload.exp! * 1000, expiresAt.getTime());
  assert.match(payload.jti!, /^[0-9a-f-]{36}$/);
});

test('a token forged with the same claims and secret verifies (the baseline of the attacks below)', async () => {
  await adapter().verify(await sign(validClaims()), NOW);
});

test('another instance with the same secret verifies the token (restart, second server)', async () => {
  const { token, expiresAt } = await adapter().issue({ sub: 'user-1', role: null, sid: 's1' }, NOW);
  assert.equal(await adapter().verify(token, NOW), { sub: 'user-1', role: null, sid: 's1', expiresAt });
});

test('a preview token carries its claims under `preview`, with no sub or sid', async () => {
  const preview = { role: 'r1', issuer: 'admin-1', session: null };
  const { token } = await adapter().issue({ preview }, NOW);
  const payload = decodeJwt(token);
  assert.equal(Object.keys(payload).sort(), ['exp', 'iat', 'iss', 'jti', 'preview']);
  assert.equal(payload.preview, preview);
});

test('a preview claim beside a sub or sid, or of the wrong shape, is INVALID_TOKEN', async () => {
  const preview = { role: null, issuer: 'admin-1', session: 'session-1' };
  for (const forged of [
    { ...validClaims(), preview },
    { ...validClaims(), sid: undefined, preview },
    { ...validClaims(), sub: undefined, preview },
    { ...validClaims(), sub: undefined, sid: undefined, preview: { ...preview, issuer: null } },
    { ...validClaims(), sub: undefined, sid: undefined, preview: 'admin-1' },
  ]) {
    await expectDomainError(adapter().verify(await sign(forged), NOW), 'INVALID_TOKEN');
  }
});

test('alg none is INVALID_TOKEN', async () => {
  const token = new UnsecuredJWT(validClaims()).encode();
  await expectDomainError(adapter().verify(token, NOW), 'INVALID_TOKEN');
});

test('HS512 signed with the same secret is INVALID_TOKEN', async () => {
  await expectDomainError(
    adapter().verify(await sign(validClaims(), { alg: 'HS512', typ: 'at+jwt' }), NOW),
    'INVALID_TOKEN',
  );
});

test('an RS256 header HMAC-signed with the secret (algorithm confusion) is INVALID_TOKEN', async () => {
  const encode = (value: object) => base64url.encode(JSON.stringify(value));
  const input = `${encode({ alg: 'RS256', typ: 'at+jwt' })}.${encode(validClaims())}`;
  const signature = createHmac('sha256', KEY).update(input).digest('base64url');
  await expectDomainError(adapter().verify(`${input}.${signature}`, NOW), 'INVALID_TOKEN');
});

test('a payload swapped under a valid signature is INVALID_TOKEN', async () => {
  const [header, , signature] = (await sign(validClaims())).split('.');
  const payload = base64url.encode(JSON.stringify({ ...validClaims(), sub: 'admin' }));
  await expectDomainError(adapter().verify(`${header}.${payload}.${signature}`, NOW), 'INVALID_TOKEN');
});

test('another issuer is INVALID_TOKEN', async () => {
  await expectDomainError(
    adapter().verify(await sign({ ...validClaims(), iss: 'someone-else' }), NOW),
    'INVALID_TOKEN',
  );
});

test('typ JWT (not an access token) and a missing typ are INVALID_TOKEN', async () => {
  await expectDomainError(
    adapter().verify(await sign(validClaims(), { alg: 'HS256', typ: 'JWT' }), NOW),
    'INVALID_TOKEN',
  );
  await expectDomainError(
    adapter().verify(await sign(validClaims(), { alg: 'HS256' }), NOW),
    'INVALID_TOKEN',
  );
});

test('nbf in the future is INVALID_TOKEN; within the 5 s clock tolerance it is accepted', async () => {
  await expectDomainError(
    adapter().verify(await sign({ ...validClaims(), nbf: NOW_S + 60 }), NOW),
    'INVALID_TOKEN',
  );
  await adapter().verify(await sign({ ...validClaims(), nbf: NOW_S + 3 }), NOW);
});

test('iat in the future is INVALID_TOKEN, as PASETO has it; within the 5 s clock tolerance it is accepted', async () => {
  await expectDomainError(
    adapter().verify(await sign({ ...validClaims(), iat: NOW_S + 60 }), NOW),
    'INVALID_TOKEN',
  );
  await adapter().verify(await sign({ ...validClaims(), iat: NOW_S + 3 }), NOW);
});

test('a missing exp, iat, sub or sid is INVALID_TOKEN', async () => {
  for (const claim of ['exp', 'iat', 'sub', 'sid']) {
    const { [claim]: _dropped, ...rest } = validClaims();
    await expectDomainError(adapter().verify(await sign(rest), NOW), 'INVALID_TOKEN');
  }
});

test('claims of the wrong type are INVALID_TOKEN', async () => {
  await expectDomainError(adapter().verify(await sign({ ...validClaims(), sid: 42 }), NOW), 'INVALID_TOKEN');
  await expectDomainError(
    adapter().verify(await sign({ ...validClaims(), role: ['admin'] }), NOW),
    'INVALID_TOKEN',
  );
});

test('kid, jku and x5u headers are ignored: the token verifies and nothing is fetched', async () => {
  const realFetch = globalThis.fetch;
  const fetched: unknown[] = [];
  globalThis.fetch = async (input) => {
    fetched.push(input);
    throw new Error('no network in this test');
  };
  try {
    const header = {
      alg: 'HS256',
      typ: 'at+jwt',
      kid: 'attacker-key',
      jku: 'http://127.0.0.1:9/jwks.json',
      x5u: 'http://127.0.0.1:9/cert.pem',
    };
    const verified = await adapter().verify(await sign(validClaims(), header), NOW);
    assert.ok('sub' in verified && verified.sub === 'user-1');
    assert.equal(fetched, []);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test('a secret shorter than 32 bytes is refused at construction', () => {
  assert.throws(
    () => new JoseAccessTokens({ secret: 'x'.repeat(31), issuer: ISSUER, ttlMs: 1000 }),
    /at least 32 bytes/,
  );
  new JoseAccessTokens({ secret: 'x'.repeat(32), issuer: ISSUER, ttlMs: 1000 });
});

test('looksLikeAccessToken is a shape test for three base64url segments', () => {
  const tokens = adapter();
  assert.ok(tokens.looksLikeAccessToken('eyJh.eyJz.c2ln'));
  for (const other of [
    'eyJh.eyJz',
    'eyJh.eyJz.c2ln.x',
    'eyJh..c2ln',
    'ey Jh.eyJz.c2ln',
    'v4.public.abc.def',
  ]) {
    assert.not.ok(tokens.looksLikeAccessToken(other), other);
  }
});

test.run();
