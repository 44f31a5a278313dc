import { once } from 'node:events';
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import type { UserRepository } from '../../src/application/ports/user-repository.ts';
import { TYPES } from '../../src/container.ts';
import { cargosSchema } from '../support/cargos-schema.ts';
import { startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { assertError, firstError, runScenario, type Scenario } from './scenario.ts';

const SOME_ID = '00000000-0000-4000-8000-000000000000';

// ---------------------------------------------------------------------------------------------
const wire = suite<{ app: TestApp; tokens: Record<string, string> }>('bodies, routes and headers');

wire.before(async (context) => {
  context.app = await startTestApp({ env: { BODY_LIMIT: '1kb' } });
  const admin = await context.app.seedAdmin();
  context.tokens = { admin: (await context.app.login(admin)).access_token };
});
wire.after(({ app }) => app.close());

const bodyRows: Scenario[] = [
  {
    name: 'malformed JSON → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/auth/login',
    rawBody: '{"email": "a@b.c",',
    headers: { 'Content-Type': 'application/json' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
  },
  ...['"text"', 'null', '12', 'true'].map(
    (scalar): Scenario => ({
      name: `a JSON scalar (${scalar}) → 400 INVALID_PAYLOAD saying what a body must be`,
      method: 'POST',
      path: '/auth/login',
      rawBody: scalar,
      headers: { 'Content-Type': 'application/json' },
      expectedStatus: 400,
      expectedCode: 'INVALID_PAYLOAD',
      expectedBody: (body) =>
        assert.is(
          (body as { errors: Array<{ message: string }> }).errors[0]!.message,
          'Request body must be a JSON object or array.',
        ),
    }),
  ),
  {
    name: 'a "__proto__" key in a body → 400 INVALID_PAYLOAD saying so, not "not valid JSON" (it is valid JSON)',
    method: 'POST',
    path: '/auth/login',
    rawBody: '{"email":"a@b.c","password":"x","__proto__":{}}',
    headers: { 'Content-Type': 'application/json' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
    expectedBody: (body) =>
      assert.is(
        (body as { errors: Array<{ message: string }> }).errors[0]!.message,
        'Request body must not hold a "__proto__" key.',
      ),
  },
  {
    name: 'a text/plain body → 415 UNSUPPORTED_MEDIA_TYPE',
    method: 'POST',
    path: '/auth/login',
    rawBody: 'email=a',
    headers: { 'Content-Type': 'text/plain' },
    expectedStatus: 415,
    expectedCode: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a form body → 415 UNSUPPORTED_MEDIA_TYPE',
    method: 'POST',
    path: '/auth/login',
    rawBody: 'email=a&password=b',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    expectedStatus: 415,
    expectedCode: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a JSON body without Content-Type → 415',
    method: 'POST',
    path: '/roles',
    as: 'admin',
    rawBody: '{"name":"x"}',
    headers: { 'Content-Type': '' },
    expectedStatus: 415,
    expectedCode: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'an empty JSON body → 400 INVALID_PAYLOAD',
    method: 'POST',
    path: '/auth/refresh',
    rawBody: '',
    headers: { 'Content-Type': 'application/json' },
    expectedStatus: 400,
    expectedCode: 'INVALID_PAYLOAD',
  },
  {
    name: 'a body over http.bodyLimit → 413 REQUEST_TOO_LARGE',
    method: 'POST',
    path: '/auth/login',
    body: { email: 'a@b.c', password: 'x'.repeat(2048) },
    expectedStatus: 413,
    expectedCode: 'REQUEST_TOO_LARGE',
  },
  ...['iso-8859-1', 'latin1', 'utf-16', 'no-such-charset'].map(
    (charset): Scenario => ({
      // Read as UTF-8 whatever it declared, such a body was misread ("cafÃ©") or refused as not UTF-8.
      name: `a JSON body declaring charset=${charset} → 415 UNSUPPORTED_MEDIA_TYPE naming the charset, not read as UTF-8`,
      method: 'POST',
      path: '/auth/login',
      rawBody: '{"email":"caf\u00c3\u00a9@b.c","password":"x"}',
      headers: { 'Content-Type': `application/json; charset=${charset}` },
      expectedStatus: 415,
      expectedCode: 'UNSUPPORTED_MEDIA_TYPE',
      expectedBody: (body) =>
        assert.is(
          (body as { errors: Array<{ message: string }> }).errors[0]!.message,
          'Request body must be UTF-8 (Content-Type: application/json; charset=utf-8, or no charset).',
        ),
    }),
  ),
  ...['UTF-8', 'utf8'].map(
    (charset): Scenario => ({
      name: `a JSON body declaring charset=${charset} is read`,
      method: 'POST',
      path: '/auth/refresh',
      rawBody: '{"refresh_token":"nope"}',
      headers: { 'Content-Type': `application/json; charset=${charset}` },
      expectedStatus: 401,
      expectedCode: 'INVALID_TOKEN',
    }),
  ),
  {
    name: 'a body in a Content-Encoding the server cannot decompress → 415 saying so',
    method: 'POST',
    path: '/auth/refresh',
    rawBody: '{"refresh_token":"nope"}',
    headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd' },
    expectedStatus: 415,
    expectedCode: 'UNSUPPORTED_MEDIA_TYPE',
    expectedBody: (body) =>
      assert.is(
        (body as { errors: Array<{ message: string }> }).errors[0]!.message,
        'Request body must be sent without Content-Encoding, or in gzip, deflate or br.',
      ),
  },
  {
    name: 'charset and +json media types are JSON',
    method: 'POST',
    path: '/auth/refresh',
    rawBody: '{"refresh_token":"nope"}',
    headers: { 'Content-Type': 'application/vnd.api+json; charset=utf-8' },
    expectedStatus: 401,
    expectedCode: 'INVALID_TOKEN',
  },
];

const routeRows: Scenario[] = [
  {
    name: 'unknown route → 404 NOT_FOUND',
    method: 'GET',
    path: '/nowhere',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'unknown route with a text body → still 404',
    method: 'POST',
    path: '/nowhere',
    rawBody: 'x',
    headers: { 'Content-Type': 'text/plain' },
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'known path, wrong method → 405 with Allow',
    method: 'DELETE',
    path: '/users',
    expectedStatus: 405,
    expectedCode: 'METHOD_NOT_ALLOWED',
    expectedHeaders: { allow: 'HEAD, GET, POST' },
  },
  {
    name: 'GET on /auth/login → 405 Allow: POST',
    method: 'GET',
    path: '/auth/login',
    expectedStatus: 405,
    expectedCode: 'METHOD_NOT_ALLOWED',
    expectedHeaders: { allow: 'POST' },
  },
  {
    name: 'PUT on an item path → 405 listing its methods',
    method: 'PUT',
    path: `/roles/${SOME_ID}`,
    expectedStatus: 405,
    expectedCode: 'METHOD_NOT_ALLOWED',
    expectedHeaders: { allow: 'HEAD, GET, PATCH, DELETE' },
  },
  {
    name: 'a method the router does not know → 405 with Allow',
    method: 'PROPFIND',
    path: '/users',
    expectedStatus: 405,
    expectedCode: 'METHOD_NOT_ALLOWED',
    expectedHeaders: { allow: /GET/ },
  },
  {
    name: "DELETE on /users/me → 405 listing only what works there, not /users/:id's DELETE",
    method: 'DELETE',
    path: '/users/me',
    as: 'admin',
    expectedStatus: 405,
    expectedCode: 'METHOD_NOT_ALLOWED',
    expectedHeaders: { allow: 'HEAD, GET, PATCH' },
  },
  {
    name: 'PUT on /users/me → 405 Allow: HEAD, GET, PATCH',
    method: 'PUT',
    path: '/users/me',
    expectedStatus: 405,
    expectedCode: 'METHOD_NOT_ALLOWED',
    expectedHeaders: { allow: 'HEAD, GET, PATCH' },
  },
  {
    name: 'OPTIONS on /users/me → Allow: HEAD, GET, PATCH',
    method: 'OPTIONS',
    path: '/users/me',
    expectedStatus: 200,
    expectedHeaders: { allow: 'HEAD, GET, PATCH' },
  },
  {
    name: 'DELETE on /users/ with an id that cannot exist → still 404',
    method: 'DELETE',
    path: '/users/not-an-id',
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: 'one trailing slash is ignored: GET /users/me/ is /users/me',
    method: 'GET',
    path: '/users/me/',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.match((body as { email: string }).email, /^admin-/),
  },
  {
    name: 'one trailing slash is ignored on a POST too: /auth/login/ answers as /auth/login',
    method: 'POST',
    path: '/auth/login/',
    body: { email: 'nobody@example.com', password: 'not-the-password' },
    expectedStatus: 401,
    expectedCode: 'INVALID_CREDENTIALS',
  },
  {
    name: 'an empty path segment names no route: GET /users//me → 404',
    method: 'GET',
    path: '/users//me',
    as: 'admin',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
  },
  {
    name: '/users/me wins over /users/:id',
    method: 'GET',
    path: '/users/me',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.match((body as { email: string }).email, /^admin-/),
  },
];

const headerRows: Scenario[] = [
  {
    name: 'security headers on a success',
    method: 'GET',
    path: '/server/health',
    expectedStatus: 200,
    expectedHeaders: {
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'content-type': 'application/json; charset=utf-8',
    },
  },
  {
    name: 'security headers on an error',
    method: 'GET',
    path: '/nowhere',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
    expectedHeaders: {
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'content-type': 'application/json; charset=utf-8',
    },
  },
  {
    name: 'a sane incoming X-Request-Id is echoed',
    method: 'GET',
    path: '/server/health',
    headers: { 'X-Request-Id': 'trace-abc.123' },
    expectedStatus: 200,
    expectedHeaders: { 'x-request-id': 'trace-abc.123' },
  },
  {
    name: 'an unsafe X-Request-Id is replaced by a generated one',
    method: 'GET',
    path: '/server/health',
    headers: { 'X-Request-Id': 'a b\tc' },
    expectedStatus: 200,
    expectedHeaders: { 'x-request-id': /^[0-9a-f-]{36}$/ },
  },
  {
    name: 'without X-Request-Id one is generated',
    method: 'GET',
    path: '/nowhere',
    expectedStatus: 404,
    expectedCode: 'NOT_FOUND',
    expectedHeaders: { 'x-request-id': /^[0-9a-f-]{36}$/ },
  },
];

for (const row of [...bodyRows, ...routeRows, ...headerRows]) {
  wire(row.name, ({ app, tokens }) => runScenario(app, tokens, row));
}

/**
 * A request with `Expect: 100-continue`, as curl sends for a large body: the head first; the body only
 * once `100 Continue` arrives. Returns everything the server wrote, up to its closing the connection.
 */
async function expectingContinue(app: TestApp, head: string, body: string): Promise<string> {
  const socket = connect(Number(new URL(app.url).port), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => {
    const before = answer;
    answer += chunk.toString('latin1');
    if (!before.includes('100 Continue') && answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n'))
      socket.write(body);
  });
  socket.write(
    `${head}\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
  );
  await once(socket, 'close');
  return answer;
}

wire(
  'Expect: 100-continue with a body over http.bodyLimit → 413 at once, never 100 Continue',
  async ({ app }) => {
    const answer = await expectingContinue(
      app,
      'POST /auth/login HTTP/1.1\r\nContent-Type: application/json',
      JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(2048) }),
    );
    assert.match(answer, /^HTTP\/1.1 413 /);
    assert.not.ok(answer.includes('100 Continue'), answer);
    assert.ok(answer.includes('"code":"REQUEST_TOO_LARGE"'), answer);
  },
);

wire(
  'Expect: 100-continue within the limits → 100 Continue, then the body is served',
  async ({ app, tokens }) => {
    const login = await expectingContinue(
      app,
      'POST /auth/login HTTP/1.1\r\nContent-Type: application/json',
      JSON.stringify({ email: 'nobody@example.com', password: 'wrong password' }),
    );
    assert.match(login, /^HTTP\/1.1 100 Continue\r\n\r\nHTTP\/1.1 401 /);
    assert.ok(login.includes('"code":"INVALID_CREDENTIALS"'), login);

    // An import is not bound by http.bodyLimit (1 KiB here): its upload is still asked for.
    (app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
    const rows = Array.from({ length: 40 }, (_, n) => `Crate number ${n} of frozen fish`);
    const imported = await expectingContinue(
      app,
      `POST /utils/import/cargos HTTP/1.1\r\nContent-Type: text/csv\r\nAuthorization: Bearer ${tokens.admin}`,
      ['description', ...rows].join('\n'),
    );
    assert.match(imported, /^HTTP\/1.1 100 Continue\r\n\r\nHTTP\/1.1 200 /);
  },
);

wire(
  'Expect: 100-continue on a request refused before its body is read → no 100 Continue',
  async ({ app }) => {
    for (const [head, status] of [
      ['POST /nowhere HTTP/1.1', 404],
      ['POST /roles HTTP/1.1\r\nAuthorization: Bearer not-a-token', 401],
    ] as const) {
      const answer = await expectingContinue(
        app,
        `${head}\r\nContent-Type: application/json`,
        JSON.stringify({ name: 'Anonymous' }),
      );
      assert.match(answer, new RegExp(`^HTTP/1.1 ${status} `), answer);
      assert.not.ok(answer.includes('100 Continue'), answer);
    }
  },
);

wire.run();

// ---------------------------------------------------------------------------------------------
const failures = suite('unexpected failures and logs');

/** The real repository, except that listing (GET /users) fails the way a database driver might. */
function listFailing(real: UserRepository): UserRepository {
  return Object.assign(Object.create(real) as UserRepository, {
    query: async () => {
      throw new Error('relation "datagate_users" does not exist: SELECT password_hash FROM datagate_users');
    },
  });
}

failures('an unexpected error → 500 INTERNAL showing only the request id, logged with that id', () =>
  withTestApp(
    async (app) => {
      const admin = await app.seedAdmin();
      const { access_token } = await app.login(admin);
      const response = await app.request('GET', '/users', {
        token: access_token,
        headers: { 'X-Request-Id': 'req-500-test' },
      });
      assertError(response, 500, 'INTERNAL');
      const error = firstError(response);
      assert.equal(Object.keys(error.extensions), ['code']);
      assert.match(error.message, 'req-500-test');
      assert.not.match(response.text, /SELECT|password_hash|datagate_users|at .*\.ts/);

      const logged = app.logs.find((line) => line.msg === 'request failed');
      assert.ok(logged, 'the failure is logged');
      assert.is(logged.requestId, 'req-500-test');
      assert.match(JSON.stringify(logged.err), 'SELECT password_hash');
    },
    {
      captureLogs: true,
      rebind: (container) => {
        const real = container.get<UserRepository>(TYPES.UserRepository);
        container.rebind<UserRepository>(TYPES.UserRepository).toConstantValue(listFailing(real));
      },
    },
  ),
);

failures(
  'the access log has one line per request, without query string: ?access_token= never reaches it',
  () =>
    withTestApp(
      async (app) => {
        const admin = await app.seedAdmin();
        const { access_token } = await app.login(admin);
        const response = await app.request('GET', `/users/me?access_token=${access_token}&fields=id`, {
          headers: { 'X-Request-Id': 'req-log-test' },
        });
        assert.is(response.status, 200);
        const lines = app.logs.filter((line) => line.requestId === 'req-log-test');
        assert.is(lines.length, 1);
        const { level, msg, method, path, status, ms } = lines[0]!;
        assert.equal(
          { level, msg, method, path, status },
          { level: 30, msg: 'request', method: 'GET', path: '/users/me', status: 200 },
        );
        assert.type(ms, 'number');
        assert.not.match(JSON.stringify(app.logs), access_token);
        assert.not.match(JSON.stringify(app.logs), admin.password);
      },
      { captureLogs: true },
    ),
);

failures.run();

// ---------------------------------------------------------------------------------------------
const profiles = suite('response profiles');

profiles('the directus profile wraps 2xx bodies in { data } and leaves errors as they are', () =>
  withTestApp(
    async (app) => {
      const admin = await app.seedAdmin();
      const login = await app.request('POST', '/auth/login', {
        body: { email: admin.email, password: admin.password },
      });
      assert.is(login.status, 200);
      const { data } = login.body as { data: { access_token: string; expires: number } };
      assert.type(data.access_token, 'string');
      assert.is(data.expires, 5 * 60_000, 'expires is the lifetime in ms (docs/api.md §1)');
      const me = await app.request('GET', '/users/me', { token: data.access_token });
      assert.is((me.body as { data: { id: string } }).data.id, admin.id);
      assertError(await app.request('GET', '/users/me'), 401, 'UNAUTHENTICATED');
    },
    { env: { API_PROFILE: 'directus', ACCESS_TOKEN_TTL: '5m' } },
  ),
);

profiles('list counts go in the body in the directus profile, in headers in the plain one', async () => {
  for (const profile of ['plain', 'directus']) {
    await withTestApp(
      async (app) => {
        const admin = await app.seedAdmin();
        const login = await app.request('POST', '/auth/login', {
          body: { email: admin.email, password: admin.password },
        });
        const pair = profile === 'plain' ? login.body : (login.body as { data: unknown }).data;
        const token = (pair as { access_token: string }).access_token;
        const created = await app.request('POST', '/collections', {
          token,
          body: {
            collection: 'crates',
            fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
          },
        });
        assert.is(created.status, 200, created.text);
        const list = await app.request('GET', '/items/crates?meta=*', { token });
        if (profile === 'plain') {
          assert.equal(list.body, []);
          assert.is(list.headers.get('x-total-count'), '0');
        } else {
          assert.equal(list.body, { data: [], meta: { total_count: 0, filter_count: 0 } });
          assert.is(list.headers.get('x-total-count'), null);
        }
        const unasked = await app.request('GET', '/items/crates', { token });
        assert.equal(unasked.body, profile === 'plain' ? [] : { data: [] }, 'no meta unless asked');
        const deleted = await app.request('DELETE', '/items/crates', { token, body: [] });
        assert.is(deleted.status, 204);
        assert.is(deleted.text, '', 'a 204 has no body in either profile');
      },
      { env: { API_PROFILE: profile } },
    );
  }
});

profiles.run();
