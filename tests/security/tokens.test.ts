import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  type JWTHeaderParameters,
  type JWTPayload,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, TEST_SECRET, type TestApp, withTestApp } from '../support/test-app.ts';
import { expectError, rawHttp } from './attack-kit.ts';

/**
 * Forged access tokens, made as an attacker would with jose, against the real app over a socket. Each
 * forgery claims to be the admin and asks for the admin-only user list; none may get past 401.
 */
type Context = {
  app: TestApp;
  adminId: string;
  adminRole: string;
  /** A genuine access token of a plain user, for tampering. */
  userToken: string;
};

const test = suite<Context>('forged and stale access tokens (docs/api.md §3)');

const ISSUER = 'datagate';
const KEY = new TextEncoder().encode(TEST_SECRET);
const encode = (value: object) => base64url.encode(JSON.stringify(value));

test.before(async (context) => {
  context.app = await startTestApp();
  const admin = await context.app.seedAdmin();
  context.adminId = admin.id;
  context.adminRole = admin.role!;
  context.userToken = (await context.app.login(await context.app.createUser())).access_token;
});
test.after(({ app }) => app.close());

/** The claims the server itself would put in an admin's token, as of the app's clock. */
function adminClaims({ app, adminId, adminRole }: Context): JWTPayload {
  const now = Math.floor(app.clock.now().getTime() / 1000);
  return {
    iss: ISSUER,
    sub: adminId,
    role: adminRole,
    sid: randomUUID(),
    iat: now,
    exp: now + 900,
    jti: randomUUID(),
  };
}

const signHs256 = (payload: JWTPayload, key: Uint8Array = KEY, header: Partial<JWTHeaderParameters> = {}) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', ...header }).sign(key);

/** The forged token is refused on the admin list, by header and by `?access_token=` alike. */
async function assertRefused(app: TestApp, token: string, code = 'INVALID_TOKEN') {
  const byHeader = await app.request('GET', '/users', { token });
  expectError(byHeader, 401, code, 'by header');
  assert.is(byHeader.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  const byQuery = await app.request('GET', `/users?access_token=${encodeURIComponent(token)}`);
  expectError(byQuery, 401, code, 'by query');
}

test('baseline: a token signed with the real secret and the admin’s claims is accepted', async (context) => {
  // Only the secret separates a forgery from a real token: every attack below lacks it or misuses it.
  const response = await context.app.request('GET', '/users', {
    token: await signHs256(adminClaims(context)),
  });
  assert.is(response.status, 200, response.text);
});

test('JWT with alg "none" and no signature → 401 INVALID_TOKEN', async (context) => {
  const unsigned = new UnsecuredJWT(adminClaims(context)).encode();
  await assertRefused(context.app, unsigned);
});

test('JWT with alg "none" and a signature segment → 401 INVALID_TOKEN', async (context) => {
  const claims = adminClaims(context);
  for (const alg of ['none', 'None', 'NONE']) {
    const input = `${encode({ alg, typ: 'at+jwt' })}.${encode(claims)}`;
    await assertRefused(context.app, `${input}.${base64url.encode('x')}`);
    const hmac = createHmac('sha256', KEY).update(input).digest('base64url');
    await assertRefused(context.app, `${input}.${hmac}`);
  }
});

test('HS/RS confusion: an "RS256" header HMAC-signed with the shared secret → 401 INVALID_TOKEN', async (context) => {
  const input = `${encode({ alg: 'RS256', typ: 'at+jwt' })}.${encode(adminClaims(context))}`;
  const signature = createHmac('sha256', KEY).update(input).digest('base64url');
  await assertRefused(context.app, `${input}.${signature}`);
});

test('HS/RS confusion: a genuine RS256 token with the attacker’s embedded public key → 401 INVALID_TOKEN', async (context) => {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  const token = await new SignJWT(adminClaims(context))
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', jwk })
    .sign(privateKey);
  await assertRefused(context.app, token);
});

test('algorithm swap: HS384 / HS512 signed with the real secret → 401 INVALID_TOKEN', async (context) => {
  for (const alg of ['HS384', 'HS512']) {
    const token = await new SignJWT(adminClaims(context))
      .setProtectedHeader({ alg, typ: 'at+jwt' })
      .sign(KEY);
    await assertRefused(context.app, token);
  }
});

test('jku / kid / x5u pointing at the attacker’s key server → 401 INVALID_TOKEN, nothing fetched', async (context) => {
  const attackerKey = new TextEncoder().encode('attacker-secret-of-at-least-32-characters!');
  let fetched = 0;
  const keyServer = createServer((_request, response) => {
    fetched++;
    response.end(JSON.stringify({ keys: [{ kty: 'oct', k: base64url.encode(attackerKey), kid: 'evil' }] }));
  });
  await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
  const keyUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
  try {
    const token = await signHs256(adminClaims(context), attackerKey, {
      kid: 'evil',
      jku: `${keyUrl}/jwks.json`,
      x5u: `${keyUrl}/cert.pem`,
    });
    await assertRefused(context.app, token);
    assert.is(fetched, 0, 'the server never asked the attacker for a key');
  } finally {
    keyServer.closeAllConnections();
    await new Promise((resolve) => keyServer.close(resolve));
  }
});

test('tampered payload under the original signature (sub and role of the admin) → 401 INVALID_TOKEN', async (context) => {
  const [header, payload, signature] = context.userToken.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as JWTPayload;
  const tampered = encode({ ...claims, sub: context.adminId, role: context.adminRole });
  await assertRefused(context.app, `${header}.${tampered}.${signature}`);
  // Even one flipped character of the payload, or the longer lifetime an attacker would want.
  const extended = encode({ ...claims, exp: (claims.exp ?? 0) + 365 * 24 * 3600 });
  await assertRefused(context.app, `${header}.${extended}.${signature}`);
  // The genuine token still works: the refusal is the tampering, not the user.
  assert.is((await context.app.request('GET', '/users/me', { token: context.userToken })).status, 200);
});

test('tampered header under the original signature (typ, alg) → 401 INVALID_TOKEN', async (context) => {
  const [, payload, signature] = context.userToken.split('.');
  for (const header of [{ alg: 'HS256', typ: 'JWT' }, { alg: 'HS256' }, { alg: 'none', typ: 'at+jwt' }]) {
    await assertRefused(context.app, `${encode(header)}.${payload}.${signature}`);
  }
});

test('signed with the wrong secret → 401 INVALID_TOKEN', async (context) => {
  for (const secret of [
    'wrong-secret-of-at-least-32-characters-0123',
    `${TEST_SECRET}x`,
    TEST_SECRET.slice(0, -1),
  ]) {
    await assertRefused(context.app, await signHs256(adminClaims(context), new TextEncoder().encode(secret)));
  }
});

test('right secret, wrong issuer or wrong typ (a token minted for something else) → 401 INVALID_TOKEN', async (context) => {
  await assertRefused(context.app, await signHs256({ ...adminClaims(context), iss: 'someone-else' }));
  await assertRefused(context.app, await signHs256(adminClaims(context), KEY, { typ: 'JWT' }));
});

test('expired: a forged token with exp in the past → 401 TOKEN_EXPIRED', async (context) => {
  const claims = adminClaims(context);
  const past = (claims.iat as number) - 1;
  await assertRefused(
    context.app,
    await signHs256({ ...claims, iat: past - 900, exp: past }),
    'TOKEN_EXPIRED',
  );
});

test('expired: a real token once the clock passes its exp → 401 TOKEN_EXPIRED, refused at exp exactly', () =>
  withTestApp(async (app) => {
    const user = await app.createUser();
    const { access_token, expires } = await app.login(user);
    assert.is(decodeJwt(access_token).exp! * 1000, expires);
    assert.is((await app.request('GET', '/users/me', { token: access_token })).status, 200);
    app.clock.advance(expires - app.clock.now().getTime() - 1);
    assert.is(
      (await app.request('GET', '/users/me', { token: access_token })).status,
      200,
      '1 ms before exp',
    );
    app.clock.advance(1);
    expectError(await app.request('GET', '/users/me', { token: access_token }), 401, 'TOKEN_EXPIRED');
  }));

test('not yet valid: nbf a minute in the future → 401 INVALID_TOKEN', async (context) => {
  const claims = adminClaims(context);
  await assertRefused(context.app, await signHs256({ ...claims, nbf: (claims.iat as number) + 60 }));
});

test('missing exp, iat, sub or sid claims under the real secret → 401 INVALID_TOKEN', async (context) => {
  for (const claim of ['exp', 'sub', 'sid', 'iat']) {
    const { [claim]: _dropped, ...rest } = adminClaims(context);
    await assertRefused(context.app, await signHs256(rest));
  }
});

test('garbage in the shape of a JWT and empty or odd bearer values → 401 INVALID_TOKEN', async (context) => {
  for (const token of [
    'a.b.c',
    'eyJ.eyJ.eyJ',
    `${'x'.repeat(2000)}.y.z`,
    'null',
    'undefined',
    '[object Object]',
  ]) {
    await assertRefused(context.app, token);
  }
  for (const authorization of ['Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'Bearer a b', 'Token abc']) {
    const response = await context.app.request('GET', '/users', {
      headers: { Authorization: authorization },
    });
    expectError(response, 401, 'INVALID_TOKEN', authorization);
  }
});

test('two Authorization headers → 400 INVALID_PAYLOAD: neither is picked, whichever is valid', async (context) => {
  // Node keeps the first of a repeated Authorization and drops the rest; a proxy in front may have judged
  // the last. Either way one request would be two callers: refused, as a header and ?access_token= are.
  const admin = await signHs256(adminClaims(context));
  for (const [first, second] of [
    [admin, 'garbage'],
    ['garbage', admin],
    [admin, admin],
  ]) {
    const request = [
      'GET /users HTTP/1.1',
      'Host: localhost',
      `Authorization: Bearer ${first}`,
      `authorization: Bearer ${second}`,
      'Connection: close',
      '',
      '',
    ].join('\r\n');
    const answer = await rawHttp(context.app, new TextEncoder().encode(request));
    assert.is(answer.status, 400, answer.text.slice(0, 400));
    assert.match(answer.text, /"code":"INVALID_PAYLOAD"/);
  }
});

/** One request, as the bytes an attacker or a careless client sends, with the given header lines. */
async function rawGet(app: TestApp, target: string, headerLines: string[]) {
  const request = [`GET ${target} HTTP/1.1`, 'Host: localhost', ...headerLines, 'Connection: close', '', ''];
  return rawHttp(app, new TextEncoder().encode(request.join('\r\n')));
}

test('an empty Authorization header is a header: refused as no Bearer token, never the public caller', async (context) => {
  // Node reads an empty (or blank) value as ''; taken for no header, it ran the request as the public
  // caller, let an empty header hide a second one, and slipped past the header-and-query refusal.
  const admin = await signHs256(adminClaims(context));
  for (const empty of ['Authorization:', 'Authorization:    ']) {
    const alone = await rawGet(context.app, '/users', [empty]);
    assert.is(alone.status, 401, alone.text.slice(0, 400));
    assert.match(alone.text, /"code":"INVALID_TOKEN"/);
    const beforeAnother = await rawGet(context.app, '/users', [empty, `Authorization: Bearer ${admin}`]);
    assert.is(beforeAnother.status, 400, beforeAnother.text.slice(0, 400));
    assert.match(beforeAnother.text, /"code":"INVALID_PAYLOAD"/);
    const withQuery = await rawGet(context.app, `/users?access_token=${admin}`, [empty]);
    assert.is(withQuery.status, 400, withQuery.text.slice(0, 400));
    assert.match(withQuery.text, /"code":"INVALID_PAYLOAD"/);
  }
});

test.run();
