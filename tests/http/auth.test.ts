import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type SeededUser, startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { assertError, firstError, runScenario, type Scenario } from './scenario.ts';

const FIFTEEN_MINUTES = 15 * 60_000;
const SEVEN_DAYS = 7 * 24 * 3_600_000;

function decodeJwtPart(token: string, index: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString('utf8'));
}

const encodeJwtPart = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

// ---------------------------------------------------------------------------------------------
const login = suite<{ app: TestApp; admin: SeededUser }>('POST /auth/login');

login.before(async (context) => {
  context.app = await startTestApp();
  context.admin = await context.app.seedAdmin();
  await context.app.createUser({
    email: 'suspended@example.com',
    password: 'right-password',
    status: 'suspended',
  });
});
login.after(({ app }) => app.close());

login(
  'answers the token pair: a typ at+jwt JWT whose exp * 1000 is `expires`, and a refresh token',
  async ({ app, admin }) => {
    const response = await app.request('POST', '/auth/login', {
      body: { email: admin.email, password: admin.password },
    });
    assert.is(response.status, 200);
    const pair = response.body as Record<string, unknown>;
    assert.equal(Object.keys(pair).sort(), ['access_token', 'expires', 'refresh_token']);
    const token = pair.access_token as string;
    assert.equal(decodeJwtPart(token, 0), { alg: 'HS256', typ: 'at+jwt' });
    const claims = decodeJwtPart(token, 1);
    assert.is((claims.exp as number) * 1000, pair.expires);
    assert.is(claims.sub, admin.id);
    assert.is(claims.role, admin.role);
    assert.is(claims.iss, 'datagate');
    assert.type(claims.sid, 'string');
    assert.type(claims.jti, 'string');
    assert.is(pair.expires, Math.floor((app.clock.now().getTime() + FIFTEEN_MINUTES) / 1000) * 1000);
    assert.match(pair.refresh_token as string, /^[\w-]{43,}$/);
    assert.is(response.headers.get('cache-control'), 'no-store');
  },
);

login('matches the e-mail case-insensitively and trimmed', async ({ app, admin }) => {
  const response = await app.request('POST', '/auth/login', {
    body: { email: `  ${admin.email.toUpperCase()} `, password: admin.password },
  });
  assert.is(response.status, 200);
});

login(
  'unknown e-mail and wrong password give the same 401 INVALID_CREDENTIALS and message',
  async ({ app, admin }) => {
    const unknown = await app.request('POST', '/auth/login', {
      body: { email: 'nobody@example.com', password: admin.password },
    });
    const wrong = await app.request('POST', '/auth/login', {
      body: { email: admin.email, password: 'wrong-one' },
    });
    assertError(unknown, 401, 'INVALID_CREDENTIALS');
    assertError(wrong, 401, 'INVALID_CREDENTIALS');
    assert.equal(unknown.body, wrong.body);
  },
);

login(
  'accepts mode "json" and ignores other unknown keys such as otp (@directus/sdk sends them)',
  async ({ app, admin }) => {
    const response = await app.request('POST', '/auth/login', {
      body: { email: admin.email, password: admin.password, mode: 'json', otp: '123456' },
    });
    assert.is(response.status, 200);
  },
);

login('ignores the Authorization header: a broken token does not stop a login', async ({ app, admin }) => {
  const response = await app.request('POST', '/auth/login', {
    body: { email: admin.email, password: admin.password },
    headers: { Authorization: 'Basic Zm9vOmJhcg==' },
  });
  assert.is(response.status, 200);
});

const loginRows: Scenario[] = [
  {
    name: 'suspended user with the right password → 401 USER_SUSPENDED',
    method: 'POST',
    path: '/auth/login',
    body: { email: 'suspended@example.com', password: 'right-password' },
    expectedStatus: 401,
    expectedCode: 'USER_SUSPENDED',
  },
  {
    name: 'suspended user with a wrong password → 401 INVALID_CREDENTIALS (suspension is no oracle)',
    method: 'POST',
    path: '/auth/login',
    body: { email: 'suspended@example.com', password: 'wrong-password' },
    expectedStatus: 401,
    expectedCode: 'INVALID_CREDENTIALS',
  },
  {
    name: 'missing password → 400 INVALID_PAYLOAD naming it',
    method: 'POST',
    path: '/auth/login',
    body: { email: 'someone@example.com' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'password',
    expectedMessage: '"password" is required.',
  },
  {
    name: 'missing email → 400 INVALID_PAYLOAD naming it',
    method: 'POST',
    path: '/auth/login',
    body: { password: 'whatever-1' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'email',
  },
  {
    name: 'email of the wrong type → 400 INVALID_PAYLOAD naming it and the type it must have',
    method: 'POST',
    path: '/auth/login',
    body: { email: 42, password: 'whatever-1' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'email',
    expectedMessage: '"email" must be a string.',
  },
  {
    name: 'mode "cookie" → 400 INVALID_PAYLOAD until cookie mode exists',
    method: 'POST',
    path: '/auth/login',
    body: { email: 'someone@example.com', password: 'whatever-1', mode: 'cookie' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedField: 'mode',
    expectedMessage: '"mode" must be "json", the only mode supported so far.',
  },
  {
    name: 'an array instead of an object → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/auth/login',
    body: [{ email: 'someone@example.com', password: 'whatever-1' }],
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedMessage: 'Request body must be a JSON object.',
  },
  {
    name: 'no body at all → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/auth/login',
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
  },
];
for (const row of loginRows) login(row.name, ({ app }) => runScenario(app, {}, row));

login.run();

// ---------------------------------------------------------------------------------------------
const refresh = suite('POST /auth/refresh and /auth/logout');

refresh('a refresh answers a new pair and ignores any Authorization header', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const first = await app.login(admin);
    const response = await app.request('POST', '/auth/refresh', {
      body: { refresh_token: first.refresh_token, mode: 'json' },
      headers: { Authorization: 'Bearer expired.or.garbage' },
    });
    assert.is(response.status, 200);
    const pair = response.body as Record<string, unknown>;
    assert.equal(Object.keys(pair).sort(), ['access_token', 'expires', 'refresh_token']);
    assert.is.not(pair.refresh_token, first.refresh_token);
    assert.is(response.headers.get('cache-control'), 'no-store');
  }),
);

refresh('rotation: reuse within the grace period succeeds; after it, the whole family is revoked', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const { refresh_token: original } = await app.login(admin);
    const successor = await app.request('POST', '/auth/refresh', { body: { refresh_token: original } });
    assert.is(successor.status, 200);
    app.clock.advance(5_000);
    const secondTab = await app.request('POST', '/auth/refresh', { body: { refresh_token: original } });
    assert.is(secondTab.status, 200, 'reuse within the 10 s grace period');

    app.clock.advance(6_000);
    assertError(
      await app.request('POST', '/auth/refresh', { body: { refresh_token: original } }),
      401,
      'INVALID_TOKEN',
    );
    for (const pair of [successor, secondTab]) {
      const token = (pair.body as { refresh_token: string }).refresh_token;
      assertError(
        await app.request('POST', '/auth/refresh', { body: { refresh_token: token } }),
        401,
        'INVALID_TOKEN',
      );
    }
  }),
);

refresh('an expired refresh token → 401 TOKEN_EXPIRED', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const pair = await app.login(admin);
    app.clock.advance(SEVEN_DAYS + 1_000);
    assertError(
      await app.request('POST', '/auth/refresh', { body: { refresh_token: pair.refresh_token } }),
      401,
      'TOKEN_EXPIRED',
    );
  }),
);

refresh('logout with an expired refresh token answers 204: its session is ended all the same', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const pair = await app.login(admin);
    app.clock.advance(SEVEN_DAYS + 1_000);
    const logout = await app.request('POST', '/auth/logout', { body: { refresh_token: pair.refresh_token } });
    assert.is(logout.status, 204, logout.text);
  }),
);

refresh('logout answers 204 with no body, after which the refresh token is refused', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const pair = await app.login(admin);
    const logout = await app.request('POST', '/auth/logout', {
      body: { refresh_token: pair.refresh_token },
      headers: { Authorization: 'Basic Zm9vOmJhcg==' },
    });
    assert.is(logout.status, 204);
    assert.is(logout.text, '');
    assertError(
      await app.request('POST', '/auth/refresh', { body: { refresh_token: pair.refresh_token } }),
      401,
      'INVALID_TOKEN',
    );
  }),
);

refresh('an unknown refresh token → 401 INVALID_TOKEN; a missing one → 400 INVALID_PAYLOAD', () =>
  withTestApp(async (app) => {
    assertError(
      await app.request('POST', '/auth/refresh', { body: { refresh_token: 'garbage' } }),
      401,
      'INVALID_TOKEN',
    );
    assertError(
      await app.request('POST', '/auth/logout', { body: { refresh_token: 'garbage' } }),
      401,
      'INVALID_TOKEN',
    );
    assertError(
      await app.request('POST', '/auth/refresh', { body: {} }),
      400,
      'INVALID_PAYLOAD',
      'refresh_token',
    );
    assertError(
      await app.request('POST', '/auth/refresh', { body: { refresh_token: 'x', mode: 'session' } }),
      400,
      'INVALID_PAYLOAD',
      'mode',
    );
    // A client in cookie or session mode sends no refresh_token: the mode is the cause to name, not the
    // token it left out on purpose.
    for (const path of ['/auth/refresh', '/auth/logout']) {
      for (const mode of ['cookie', 'session']) {
        assertError(await app.request('POST', path, { body: { mode } }), 400, 'INVALID_PAYLOAD', 'mode');
      }
    }
  }),
);

refresh('a suspended user can no longer refresh, nor use an access token already issued', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const adminToken = (await app.login(admin)).access_token;
    const user = await app.createUser();
    const pair = await app.login(user);
    const suspend = await app.request('PATCH', `/users/${user.id}`, {
      token: adminToken,
      body: { status: 'suspended' },
    });
    assert.is(suspend.status, 200);
    const refreshed = await app.request('POST', '/auth/refresh', {
      body: { refresh_token: pair.refresh_token },
    });
    assert.is(refreshed.status, 401);
    assertError(await app.request('GET', '/users/me', { token: pair.access_token }), 401, 'USER_SUSPENDED');
  }),
);

refresh.run();

// ---------------------------------------------------------------------------------------------
const tokens = suite('presenting a token');

tokens('an expired access token → 401 TOKEN_EXPIRED', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const pair = await app.login(admin);
    assert.is((await app.request('GET', '/users/me', { token: pair.access_token })).status, 200);
    app.clock.advance(FIFTEEN_MINUTES);
    assertError(await app.request('GET', '/users/me', { token: pair.access_token }), 401, 'TOKEN_EXPIRED');
  }),
);

tokens('tampered signatures, alg "none" and foreign schemes → 401 INVALID_TOKEN', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const { access_token } = await app.login(admin);
    const [header, payload, signature] = access_token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const claims = decodeJwtPart(access_token, 1);
    const noneHeader = encodeJwtPart({ alg: 'none', typ: 'at+jwt' });
    const elevated = encodeJwtPart({ ...claims, sub: admin.id });
    const attempts: Array<[string, Record<string, string>]> = [
      ['tampered signature', { Authorization: `Bearer ${header}.${payload}.${flipped}` }],
      ['tampered payload', { Authorization: `Bearer ${header}.${elevated}x.${signature}` }],
      ['alg none, empty signature', { Authorization: `Bearer ${noneHeader}.${payload}.` }],
      ['alg none, some signature', { Authorization: `Bearer ${noneHeader}.${payload}.${signature}` }],
      ['unknown opaque token', { Authorization: 'Bearer not-a-token-anyone-issued' }],
      ['Basic scheme', { Authorization: 'Basic Zm9vOmJhcg==' }],
      ['token without scheme', { Authorization: access_token }],
      ['empty bearer', { Authorization: 'Bearer ' }],
    ];
    for (const [name, headers] of attempts) {
      const response = await app.request('GET', '/users/me', { headers });
      assert.is(response.status, 401, name);
      assert.is(firstError(response).extensions.code, 'INVALID_TOKEN', name);
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/, name);
    }
  }),
);

tokens('?access_token= works like the header; both at once → 400 INVALID_PAYLOAD', () =>
  withTestApp(async (app) => {
    const admin = await app.seedAdmin();
    const { access_token } = await app.login(admin);
    const viaQuery = await app.request('GET', `/users/me?access_token=${access_token}`);
    assert.is(viaQuery.status, 200);
    assert.is((viaQuery.body as { id: string }).id, admin.id);
    assertError(
      await app.request('GET', `/users/me?access_token=${access_token}`, { token: access_token }),
      400,
      'INVALID_PAYLOAD',
    );
    assertError(await app.request('GET', '/users/me?access_token='), 401, 'INVALID_TOKEN');
    // The name percent-encoded is the same parameter (the edge skips parsing only strings that cannot name it).
    const encoded = await app.request('GET', `/users/me?limit=1&access%5Ftoken=${access_token}`);
    assert.is(encoded.status, 200);
    assert.is((encoded.body as { id: string }).id, admin.id);
    // Given twice or in a bracket form, it is refused as the query reads it, never taken for no token (the
    // public caller) — a valid token or not, on any route that reads one.
    for (const token of [access_token, 'garbage']) {
      for (const query of [
        `access_token=${token}&access_token=${token}`,
        `access_token[]=${token}`,
        `access_token[0]=${token}`,
        `access_token[a]=${token}`,
        `access_token%5B%5D=${token}`,
      ]) {
        for (const path of ['/users/me', '/items/ghosts', '/server/info']) {
          assertError(await app.request('GET', `${path}?${query}`), 400, 'INVALID_PAYLOAD', 'access_token');
        }
      }
    }
    // A query the route will refuse does not hide the token: it is read first, then the query is refused.
    assertError(
      await app.request('GET', `/users/me?access_token=${access_token}&fields=%FF`),
      400,
      'INVALID_QUERY',
    );
    assertError(await app.request('GET', '/users/me?access_token=garbage&fields=%FF'), 401, 'INVALID_TOKEN');
  }),
);

tokens('with auth.allowQueryToken off, ?access_token= is refused with 400 INVALID_PAYLOAD', () =>
  withTestApp(
    async (app) => {
      const admin = await app.seedAdmin();
      const { access_token } = await app.login(admin);
      assertError(
        await app.request('GET', `/users/me?access_token=${access_token}`),
        400,
        'INVALID_PAYLOAD',
        'access_token',
      );
      assert.is((await app.request('GET', '/users/me', { token: access_token })).status, 200);
    },
    { env: { ALLOW_QUERY_TOKEN: 'false' } },
  ),
);

tokens('ACCESS_TOKEN_TTL=5m makes `expires` five minutes away, and the token dies then', () =>
  withTestApp(
    async (app) => {
      const admin = await app.seedAdmin();
      const pair = await app.login(admin);
      const fiveMinutes = 5 * 60_000;
      assert.is(pair.expires, Math.floor((app.clock.now().getTime() + fiveMinutes) / 1000) * 1000);
      assert.is((decodeJwtPart(pair.access_token, 1).exp as number) * 1000, pair.expires);
      app.clock.set(new Date(pair.expires - 1));
      assert.is((await app.request('GET', '/users/me', { token: pair.access_token })).status, 200);
      app.clock.set(new Date(pair.expires));
      assertError(await app.request('GET', '/users/me', { token: pair.access_token }), 401, 'TOKEN_EXPIRED');
    },
    { env: { ACCESS_TOKEN_TTL: '5m' } },
  ),
);

tokens.run();
