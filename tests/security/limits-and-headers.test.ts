import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { UserRepository } from '../../src/application/ports/user-repository.ts';
import { TYPES } from '../../src/container.ts';
import {
  type SeededUser,
  startTestApp,
  type TestApp,
  type TestResponse,
  withTestApp,
} from '../support/test-app.ts';
import {
  type Arena,
  assertIntact,
  bytes,
  CARGO,
  expectError,
  openMemoryArena,
  q,
  rawHttp,
  rawRequest,
  removeStrayRows,
} from './attack-kit.ts';

/**
 * docs/api.md §4a: the limits no caller can lift, whoever they are (these run as the admin, who can lift
 * nothing either); then the headers every answer carries, and what the access log never holds.
 */
const limits = suite<{ arena: Arena }>('limits no caller can lift (docs/api.md §4a)');

limits.before(async (context) => {
  context.arena = await openMemoryArena({ BODY_LIMIT: '64kb', MAX_QUERY_LENGTH: '4096' });
});
limits.after.each(({ arena }) => removeStrayRows(arena));
limits.after(({ arena }) => arena.app.close());

const list = (arena: Arena, query: string) =>
  arena.app.request('GET', `/items/cargos?${query}`, { token: arena.admin });

limits('body over http.bodyLimit → 413 REQUEST_TOO_LARGE; one byte under is read', async ({ arena }) => {
  const sized = (bytes: number) => {
    const frame = '{"description":""}';
    return `{"description":"${'x'.repeat(bytes - frame.length)}"}`;
  };
  const over = await rawRequest(
    arena.app,
    'POST',
    '/items/cargos',
    new TextEncoder().encode(sized(64 * 1024 + 1)),
    {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${arena.admin}`,
    },
  );
  expectError(over, 413, 'REQUEST_TOO_LARGE');
  const fits = await arena.app.request('POST', '/items/cargos', {
    token: arena.admin,
    rawBody: sized(64 * 1024),
    headers: { 'Content-Type': 'application/json' },
  });
  assert.is(fits.status, 200, fits.text);
  // A Content-Length above the limit is refused before the body is read, whatever follows it.
  const announced = await rawHttp(
    arena.app,
    bytes(
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n',
      `Content-Length: ${10 * 1024 * 1024}\r\nConnection: close\r\n\r\n{"email":"a@b.c","password":"x"}`,
    ),
  );
  assert.is(announced.status, 413, announced.text);
  assert.match(announced.text, '"REQUEST_TOO_LARGE"');
  // One that promises more than is sent never reaches a handler.
  const truncated = await rawHttp(
    arena.app,
    bytes(
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n',
      'Content-Length: 100\r\nConnection: close\r\n\r\n{"email":"a@b.c","password":"x"}',
    ),
  );
  assert.is(truncated.status, 400, truncated.text);
});

limits(
  'more than query.batchMax (1,000) items in one write, in every form → 400 INVALID_PAYLOAD',
  async ({ arena }) => {
    // Small items, so that 1,001 of them stay under this suite's 64 kb body limit.
    const items = Array.from({ length: 1001 }, () => ({ crates: 1 }));
    const keys = Array.from({ length: 1001 }, () => CARGO.fish);
    const attempts: Array<[string, unknown]> = [
      ['POST', items],
      ['PATCH', { keys, data: { crates: 1 } }],
      ['PATCH', keys.map((id) => ({ id }))],
      ['DELETE', keys],
      ['DELETE', { keys }],
    ];
    for (const [method, body] of attempts) {
      const response = await arena.app.request(method, '/items/cargos', { token: arena.admin, body });
      expectError(response, 400, 'INVALID_PAYLOAD', method);
      assert.match(firstMessage(response), '1000');
    }
    // Rows matched by a query count too: 1,001 stored rows cannot be updated in one request.
    const fill = Array.from({ length: 1000 }, () => ({ description: 'filler' }));
    for (const batch of [fill, fill.slice(0, 1)]) {
      assert.is(
        (await arena.app.request('POST', '/items/cargos', { token: arena.admin, body: batch })).status,
        200,
      );
    }
    const byQuery = await arena.app.request('PATCH', '/items/cargos', {
      token: arena.admin,
      body: { query: { filter: { description: { _eq: 'filler' } } }, data: { crates: 2 } },
    });
    expectError(byQuery, 400, 'INVALID_PAYLOAD', 'update by query');
    const exactly = await arena.app.request('POST', '/items/cargos', { token: arena.admin, body: fill });
    assert.is(exactly.status, 200, 'exactly 1,000 items are one request');
    await removeStrayRows(arena);
    await assertIntact(arena, 'oversize batches');
  },
);

limits(
  'query string over http.maxQueryLength → 414 URI_TOO_LONG, before authentication',
  async ({ arena }) => {
    const long = `filter=${'a'.repeat(4100)}`;
    for (const token of [arena.admin, undefined]) {
      const response = await arena.app.request('GET', `/items/cargos?${long}`, { token });
      expectError(response, 414, 'URI_TOO_LONG');
    }
    // Also when the long part is the token itself, and on routes that ignore the query string.
    expectError(
      await arena.app.request('GET', `/users/me?access_token=${'a'.repeat(4100)}`),
      414,
      'URI_TOO_LONG',
    );
    expectError(await arena.app.request('GET', `/server/health?x=${'a'.repeat(4100)}`), 414, 'URI_TOO_LONG');
    // Counted in bytes: 1,400 three-byte characters are 4,200 bytes.
    expectError(await list(arena, `search=${q('中'.repeat(1400))}`), 414, 'URI_TOO_LONG');
    assert.is((await list(arena, `search=${'a'.repeat(200)}`)).status, 200);
  },
);

limits('a query string beyond what the HTTP server reads at all → 414 or 431, never 500', () =>
  withTestApp(async (app) => {
    const response = await app.request('GET', `/items/cargos?filter=${'a'.repeat(70_000)}`);
    assert.ok([414, 431].includes(response.status), `status ${response.status}`);
  }),
);

limits(
  'filter nested deeper than 10 levels → 400 INVALID_QUERY (MAX_DEPTH); 10 levels are read',
  async ({ arena }) => {
    const nested = (levels: number) => {
      let filter: unknown = { id: { _nnull: true } };
      for (let level = 1; level < levels; level++) filter = { _and: [filter] };
      return filter;
    };
    const ten = await list(arena, `filter=${q(nested(10))}`);
    assert.is(ten.status, 200, ten.text);
    const eleven = await list(arena, `filter=${q(nested(11))}`);
    expectError(eleven, 400, 'INVALID_QUERY');
    assert.is(
      (eleven.body as { errors: Array<{ extensions: { reason: string } }> }).errors[0]!.extensions.reason,
      'MAX_DEPTH',
    );
    // The same limit in write-by-query bodies.
    const deleted = await arena.app.request('DELETE', '/items/cargos', {
      token: arena.admin,
      body: { query: { filter: nested(11) } },
    });
    expectError(deleted, 400, 'INVALID_QUERY');
    await assertIntact(arena, 'deep filters');
  },
);

limits(
  'filter with more than 500 conditions → 400 INVALID_QUERY (MAX_CONDITIONS); 500 are read',
  async ({ arena }) => {
    // Empty groups count as conditions; sent with braces unescaped, as URLs may carry them, to stay short.
    const conditions = (count: number) =>
      `{"_or":[${Array(count).fill('{}').join(',')}]}`.replaceAll('"', '%22');
    const fits = await list(arena, `filter=${conditions(500)}`);
    assert.is(fits.status, 200, fits.text);
    const tooMany = await list(arena, `filter=${conditions(501)}`);
    expectError(tooMany, 400, 'INVALID_QUERY');
    assert.is(
      (tooMany.body as { errors: Array<{ extensions: { reason: string } }> }).errors[0]!.extensions.reason,
      'MAX_CONDITIONS',
    );
    // Real conditions, in a body where the query-string length does not stop them first.
    const real = { _or: Array.from({ length: 501 }, (_, index) => ({ crates: { _eq: index } })) };
    const deleted = await arena.app.request('DELETE', '/items/cargos', {
      token: arena.admin,
      body: { query: { filter: real } },
    });
    expectError(deleted, 400, 'INVALID_QUERY');
    await assertIntact(arena, 'wide filters');
  },
);

limits(
  'limit above query.limitMax (1,000) → 400 INVALID_QUERY, never a silent clamp; -1 refused too',
  async ({ arena }) => {
    assert.is((await list(arena, 'limit=1000')).status, 200);
    for (const limit of ['1001', '99999999', '-1', '1000000000000000']) {
      expectError(await list(arena, `limit=${limit}`), 400, 'INVALID_QUERY', limit);
    }
    // page × limit cannot reach past a safe offset either.
    expectError(await list(arena, 'limit=1000&page=999999999999999'), 400, 'INVALID_QUERY');
  },
);

limits(
  'search longer than 256 characters → 400 INVALID_QUERY (MAX_SEARCH_LENGTH); 256 are read',
  async ({ arena }) => {
    assert.is((await list(arena, `search=${'a'.repeat(256)}`)).status, 200);
    assert.is((await list(arena, `search=${q('🐟'.repeat(256))}`)).status, 200, 'counted in characters');
    const long = await list(arena, `search=${'a'.repeat(257)}`);
    expectError(long, 400, 'INVALID_QUERY');
    assert.is(
      (long.body as { errors: Array<{ extensions: { reason: string } }> }).errors[0]!.extensions.reason,
      'MAX_SEARCH_LENGTH',
    );
  },
);

function firstMessage(response: TestResponse): string {
  return (response.body as { errors: Array<{ message: string }> }).errors[0]!.message;
}

limits.run();

// ---------------------------------------------------------------------------------------------
const headers = suite<{ app: TestApp; admin: string; refresh: string; user: SeededUser }>(
  'security headers on every answer',
);

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

headers.before(async (context) => {
  context.app = await startTestApp({
    env: { BODY_LIMIT: '1kb', MAX_QUERY_LENGTH: '2048', LOGIN_THROTTLE: 'false' },
    rebind: (container) => {
      // GET /users fails the way a broken database driver would: the 500 must carry the headers too.
      const real = container.get<UserRepository>(TYPES.UserRepository);
      container.rebind<UserRepository>(TYPES.UserRepository).toConstantValue(
        Object.assign(Object.create(real) as UserRepository, {
          query: async () => {
            throw new Error('connection terminated');
          },
        }),
      );
    },
  });
  context.user = await context.app.seedAdmin();
  const pair = await context.app.login(context.user);
  context.admin = pair.access_token;
  context.refresh = pair.refresh_token;
});
headers.after(({ app }) => app.close());

function assertSecurityHeaders(response: TestResponse, label: string) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.is(response.headers.get(name), value, `${label}: ${name}`);
  }
  assert.is(response.headers.get('x-powered-by'), null, `${label}: x-powered-by`);
  assert.is(response.headers.get('server'), null, `${label}: server`);
}

headers(
  'nosniff, no-store, X-Frame-Options DENY and no-referrer on successes, errors, /auth and 500s',
  async ({ app, admin, refresh }) => {
    const json = { 'Content-Type': 'application/json' };
    const cases: Array<
      [
        string,
        number,
        string,
        string,
        { body?: unknown; rawBody?: string; token?: string; headers?: Record<string, string> },
      ]
    > = [
      ['health', 200, 'GET', '/server/health', {}],
      ['HEAD', 200, 'HEAD', '/server/health', {}],
      ['users/me', 200, 'GET', '/users/me', { token: admin }],
      ['refresh', 200, 'POST', '/auth/refresh', { body: { refresh_token: refresh } }],
      ['login failure', 401, 'POST', '/auth/login', { body: { email: 'nobody@example.com', password: 'x' } }],
      ['unknown refresh token', 401, 'POST', '/auth/refresh', { body: { refresh_token: 'nope' } }],
      ['logout failure', 401, 'POST', '/auth/logout', { body: { refresh_token: 'nope' } }],
      ['malformed login body', 400, 'POST', '/auth/login', { rawBody: '{"email":', headers: json }],
      ['bad token', 401, 'GET', '/users/me', { token: 'nope' }],
      ['anonymous', 401, 'GET', '/items/cargos', {}],
      ['bad payload', 400, 'POST', '/roles', { token: admin, body: { name: 1 } }],
      ['missing collection', 404, 'GET', '/items/ghosts', { token: admin }],
      ['unknown route', 404, 'GET', '/nowhere', {}],
      ['wrong method', 405, 'PUT', '/users', { token: admin }],
      ['oversize body', 413, 'POST', '/auth/login', { body: { email: 'x', password: 'y'.repeat(2000) } }],
      ['long query string', 414, 'GET', `/items/cargos?x=${'a'.repeat(3000)}`, {}],
      [
        'text body',
        415,
        'POST',
        '/auth/login',
        { rawBody: 'email=a', headers: { 'Content-Type': 'text/plain' } },
      ],
      ['unexpected failure', 500, 'GET', '/users', { token: admin }],
      ['preflight', 404, 'OPTIONS', '/items/cargos', {}],
    ];
    for (const [label, status, method, path, options] of cases) {
      const response = await app.request(method, path, options);
      if (label === 'preflight') assert.ok(response.status < 500, label);
      else assert.is(response.status, status, `${label} (${response.text.slice(0, 200)})`);
      assertSecurityHeaders(response, label);
    }
  },
);

headers('token pairs from login are never cacheable, nor shown to a framing page', async ({ app, user }) => {
  const response = await app.request('POST', '/auth/login', {
    body: { email: user.email, password: user.password },
  });
  assert.is(response.status, 200);
  assertSecurityHeaders(response, 'login');
});

headers.run();

// ---------------------------------------------------------------------------------------------
const logs = suite('what the access log never holds');

logs('?access_token= never appears in the access log: not on success, failure, 414 or 500', () =>
  withTestApp(
    async (app) => {
      const admin = await app.seedAdmin();
      const pair = await app.login(admin);
      const requests: Array<[string, string]> = [
        ['GET', `/users/me?access_token=${pair.access_token}&fields=id`],
        ['GET', `/items/ghosts?access_token=${pair.access_token}`],
        ['GET', `/users/me?access_token=${pair.access_token}x`],
        ['GET', `/users/me?x=${'a'.repeat(2100)}&access_token=${pair.access_token}`],
        ['GET', `/nowhere?access_token=${pair.access_token}`],
        ['PUT', `/users?access_token=${pair.access_token}`],
      ];
      for (const [method, path] of requests) await app.request(method, path);
      const logged = JSON.stringify(app.logs);
      assert.ok(
        app.logs.filter((line) => line.msg === 'request').length >= requests.length,
        'every request logged',
      );
      assert.not.match(logged, pair.access_token, 'the access token');
      assert.not.match(logged, pair.refresh_token, 'the refresh token');
      assert.not.match(logged, admin.password, 'the password');
      assert.not.match(logged, 'access_token', 'not even the parameter name');
    },
    { captureLogs: true, env: { MAX_QUERY_LENGTH: '2048' } },
  ),
);

logs('static tokens in the query string and passwords in login bodies never reach the log', () =>
  withTestApp(
    async (app) => {
      const staticToken = 'a-static-token-that-must-not-be-logged-0123';
      const user = await app.createUser({ token: staticToken, password: 'logged-nowhere-password' });
      await app.request('GET', `/users/me?access_token=${staticToken}`);
      await app.request('POST', '/auth/login', {
        body: { email: user.email, password: 'logged-nowhere-password' },
      });
      await app.request('POST', '/auth/login', {
        body: { email: user.email, password: 'a-wrong-guess-password' },
      });
      const logged = JSON.stringify(app.logs);
      for (const secret of [staticToken, 'logged-nowhere-password', 'a-wrong-guess-password']) {
        assert.not.match(logged, secret);
      }
    },
    { captureLogs: true, env: { LOGIN_THROTTLE: 'false' } },
  ),
);

logs.run();
