import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import type { HttpApp } from '../../src/adapters/http/create-http-app.ts';
import { TYPES } from '../../src/container.ts';
import type { ErrorBody } from '../http/scenario.ts';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import type { TestResponse } from '../support/test-app.ts';
import {
  type Arena,
  assertIntact,
  bytes,
  CARGO,
  closeArena,
  expectError,
  openArena,
  q,
  rawHttp,
  rawRequest,
  removeStrayRows,
} from './attack-kit.ts';

/**
 * docs/api.md §4a: a NUL character (which PostgreSQL text cannot hold) or a lone surrogate (which UTF-8
 * cannot encode, so it would be stored as U+FFFD) is refused with a 400 naming where it was — in a body, a
 * query value, a path segment or a header, on every endpoint — before any handler or database sees it.
 * Bodies: INVALID_PAYLOAD; query strings: INVALID_QUERY; path segments and headers: INVALID_PAYLOAD.
 */
const NUL = 'a\u0000b';
const LONE_SURROGATES = ['\ud800', '\udfff', 'a\ud800b', '\udc00\ud800'];
const FLAWED = [NUL, ...LONE_SURROGATES];

/** Every route of every area (src/modules), its parameters filled with names and ids that exist. */
const EVERY_ROUTE: ReadonlyArray<[string, string]> = [
  ['POST', '/auth/login'],
  ['POST', '/auth/refresh'],
  ['POST', '/auth/logout'],
  ['GET', '/users'],
  ['POST', '/users'],
  ['GET', '/users/me'],
  ['PATCH', '/users/me'],
  ['GET', `/users/${CARGO.fish}`],
  ['PATCH', `/users/${CARGO.fish}`],
  ['DELETE', `/users/${CARGO.fish}`],
  ['GET', '/roles'],
  ['POST', '/roles'],
  ['GET', `/roles/${CARGO.fish}`],
  ['PATCH', `/roles/${CARGO.fish}`],
  ['DELETE', `/roles/${CARGO.fish}`],
  ['GET', '/permissions'],
  ['POST', '/permissions'],
  ['GET', `/permissions/${CARGO.fish}`],
  ['PATCH', `/permissions/${CARGO.fish}`],
  ['DELETE', `/permissions/${CARGO.fish}`],
  ['GET', '/collections'],
  ['POST', '/collections'],
  ['GET', '/collections/cargos'],
  ['DELETE', '/collections/cargos'],
  ['GET', '/fields/cargos'],
  ['POST', '/fields/cargos'],
  ['GET', '/fields/cargos/description'],
  ['DELETE', '/fields/cargos/description'],
  ['GET', '/relations'],
  ['POST', '/relations'],
  ['GET', '/relations/cargos'],
  ['GET', '/relations/cargos/description'],
  ['PATCH', '/relations/cargos/description'],
  ['DELETE', '/relations/cargos/description'],
  ['GET', '/items/cargos'],
  ['POST', '/items/cargos'],
  ['PATCH', '/items/cargos'],
  ['DELETE', '/items/cargos'],
  ['GET', `/items/cargos/${CARGO.fish}`],
  ['PATCH', `/items/cargos/${CARGO.fish}`],
  ['DELETE', `/items/cargos/${CARGO.fish}`],
  ['POST', '/utils/cache/clear'],
  ['GET', '/server/health'],
  ['GET', '/server/info'],
  ['GET', '/server/ping'],
  ['GET', '/server/specs/oas'],
  ['GET', '/docs'],
  ['GET', '/docs/explorer.js'],
];

for (const [target, test] of suitePerBackend<{ arena: Arena }>(
  backends(),
  (backend) => `NUL characters and lone surrogates on ${backend}`,
)) {
  test.before(async (context) => {
    context.arena = await openArena(target, { LOGIN_THROTTLE: 'false' });
  });
  test.after.each(({ arena }) => removeStrayRows(arena));
  test.after(({ arena }) => closeArena(arena, target));

  function expectNamed(response: TestResponse, code: string, field: string, label: string) {
    expectError(response, 400, code, label);
    const [error] = (response.body as ErrorBody).errors;
    assert.is(error!.extensions.field, field, `${label}: names the field`);
  }

  test('a NUL or lone surrogate in a login e-mail or password → 400 INVALID_PAYLOAD naming it', async ({
    arena,
  }) => {
    for (const text of FLAWED) {
      for (const field of ['email', 'password']) {
        const body = { email: 'someone@example.com', password: 'password-123' };
        body[field as keyof typeof body] =
          field === 'email' ? `some${text}one@example.com` : `pass${text}word`;
        const response = await arena.app.request('POST', '/auth/login', { body });
        expectNamed(response, 'INVALID_PAYLOAD', field, `login ${field} ${JSON.stringify(text)}`);
      }
    }
    const refresh = await arena.app.request('POST', '/auth/refresh', { body: { refresh_token: NUL } });
    expectNamed(refresh, 'INVALID_PAYLOAD', 'refresh_token', 'refresh token');
  });

  test('a NUL or lone surrogate in any text of any body → 400 INVALID_PAYLOAD naming its path, nothing written', async ({
    arena,
  }) => {
    const writes: Array<[string, string, unknown, string]> = [
      ['POST', '/users', { email: `u${NUL}@example.com`, password: 'password-123' }, 'email'],
      ['POST', '/users', { email: 'n@example.com', password: 'password-123', first_name: NUL }, 'first_name'],
      ['PATCH', '/users/me', { last_name: NUL }, 'last_name'],
      ['POST', '/roles', { name: NUL }, 'name'],
      ['POST', '/roles', { name: 'r', description: NUL }, 'description'],
      ['POST', '/permissions', { role: null, collection: `cargos${NUL}`, action: 'read' }, 'collection'],
      ['POST', '/collections', { collection: `c${NUL}`, fields: [] }, 'collection'],
      [
        'POST',
        '/collections',
        { collection: 'c', fields: [{ field: `f${NUL}`, type: 'string' }] },
        'fields.0.field',
      ],
      ['POST', '/items/cargos', { description: NUL }, 'description'],
      ['POST', '/items/cargos', [{ code: 'x' }, { description: NUL }], '1.description'],
      ['PATCH', `/items/cargos/${CARGO.fish}`, { manifest: { deep: [1, NUL] } }, 'manifest.deep.1'],
      ['PATCH', '/items/cargos', { keys: [CARGO.fish], data: { code: NUL } }, 'data.code'],
      [
        'DELETE',
        '/items/cargos',
        { query: { filter: { description: { _eq: NUL } } } },
        'query.filter.description._eq',
      ],
    ];
    for (const [method, path, body, field] of writes) {
      for (const text of FLAWED) {
        const sent = JSON.parse(
          JSON.stringify(body).replaceAll('a\\u0000b', JSON.stringify(text).slice(1, -1)),
        );
        const response = await arena.app.request(method, path, { token: arena.admin, body: sent });
        expectNamed(response, 'INVALID_PAYLOAD', field, `${method} ${path} ${field} ${JSON.stringify(text)}`);
      }
    }
    await assertIntact(arena, 'flawed text in bodies');
  });

  test('a lone surrogate is never stored as U+FFFD: "a\\ud800b" → 400, as sent in raw JSON', async ({
    arena,
  }) => {
    for (const escaped of ['\\ud800', '\\uDFFF', 'a\\ud800b', '\\udc00\\ud800', '\\u0000']) {
      const response = await rawRequest(
        arena.app,
        'POST',
        '/items/cargos',
        bytes(`{"description":"${escaped}"}`),
        { 'Content-Type': 'application/json', Authorization: `Bearer ${arena.admin}` },
      );
      expectNamed(response, 'INVALID_PAYLOAD', 'description', escaped);
    }
    // A pair is one character, and an escaped backslash is no escape: both stored as sent.
    for (const description of ['😀 \ud83d\ude00', '\\ud800 \\u0000']) {
      const stored = await arena.app.request('POST', '/items/cargos', {
        token: arena.admin,
        body: { description },
      });
      assert.is(stored.status, 200, stored.text);
      assert.is((stored.body as { description: string }).description, description);
    }
  });

  test('a NUL or lone surrogate in a body key → 400 INVALID_PAYLOAD naming the key, escaped', async ({
    arena,
  }) => {
    const response = await arena.app.request('POST', '/items/cargos', {
      token: arena.admin,
      body: { manifest: { [`k${NUL}`]: 1 } },
    });
    expectNamed(response, 'INVALID_PAYLOAD', 'manifest.ka\\u0000b', 'key with NUL');
    const surrogate = await arena.app.request('POST', '/roles', {
      token: arena.admin,
      body: { '\ud800': 1 },
    });
    expectNamed(surrogate, 'INVALID_PAYLOAD', '\\ud800', 'key with a lone surrogate');
  });

  test('a percent-encoded NUL in any query value or name, on every endpoint → 400 INVALID_QUERY naming it', async ({
    arena,
  }) => {
    for (const [method, path] of EVERY_ROUTE) {
      for (const [query, field] of [
        ['x=a%00b', 'x'],
        ['search=%00', 'search'],
        ['filter[description][_eq]=a%00', 'filter[description][_eq]'],
        ['filter%5Bcode%5D%5B_in%5D=a,%00', 'filter[code][_in]'],
        ['access_token=%00', 'access_token'],
        ['fields=id&x%00y=1', 'x\\u0000y'],
      ]) {
        const response = await arena.app.request(method, `${path}?${query}`, {
          token: query.startsWith('access_token') ? undefined : arena.admin,
          body: method === 'GET' ? undefined : {},
        });
        expectNamed(response, 'INVALID_QUERY', field!, `${method} ${path}?${query}`);
      }
    }
    await assertIntact(arena, 'NUL in query strings');
  });

  test('a NUL or lone surrogate escaped in the JSON filter → 400 INVALID_QUERY naming its place', async ({
    arena,
  }) => {
    for (const text of FLAWED) {
      for (const [filter, field] of [
        [{ description: { _eq: text } }, 'filter[description][_eq]'],
        [{ _or: [{ code: { _in: ['x', text] } }] }, 'filter[_or][0][code][_in][1]'],
        [{ manifest: { _eq: { [text]: 1 } } }, `filter[manifest][_eq][${JSON.stringify(text).slice(1, -1)}]`],
      ] as const) {
        for (const token of [arena.admin, arena.operator]) {
          const response = await arena.app.request('GET', `/items/cargos?filter=${q(filter)}`, { token });
          expectNamed(response, 'INVALID_QUERY', field, `filter ${JSON.stringify(filter)}`);
        }
      }
    }
  });

  test('a percent-encoded NUL in a path segment (/items/a%00b, /roles/%00, …) → 400 INVALID_PAYLOAD naming the parameter', async ({
    arena,
  }) => {
    for (const [path, field] of [
      ['/items/a%00b', 'collection'],
      ['/items/cargos%00', 'collection'],
      ['/items/cargos/a%00b', 'key'],
      [`/items/cargos/${CARGO.fish}%00`, 'key'],
      ['/roles/%00', 'id'],
      ['/users/%00', 'id'],
      ['/permissions/%00', 'id'],
      ['/collections/%00', 'collection'],
      ['/fields/cargos%00', 'collection'],
      ['/fields/cargos/a%00', 'field'],
    ]) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const body = method === 'PATCH' ? { description: 'x' } : undefined;
        const response = await arena.app.request(method, path!, { token: arena.admin, body });
        if (response.status === 405) continue; // not a route for this method
        expectNamed(response, 'INVALID_PAYLOAD', field!, `${method} ${path}`);
      }
    }
    await assertIntact(arena, 'NUL in paths');
  });

  test('a path segment that does not percent-decode (%FF, an encoded lone surrogate) → 400 INVALID_PAYLOAD, never read as literal text', async ({
    arena,
  }) => {
    for (const escaped of ['%FF', '%ED%A0%80', '%ED%B3%BF', '%C3%28', '%', '%G1']) {
      for (const path of [
        `/items/cargos/${escaped}`,
        `/items/${escaped}`,
        `/roles/${escaped}`,
        `/${escaped}`,
      ]) {
        const response = await arena.app.request('GET', path, { token: arena.admin });
        expectNamed(response, 'INVALID_PAYLOAD', 'path', path);
      }
    }
  });

  test('a NUL in a header → 400: from the HTTP parser, and from the app behind a lenient parser', async ({
    arena,
  }) => {
    const request = (header: string) =>
      bytes(
        `GET /items/cargos HTTP/1.1\r\nHost: x\r\n${header}\r\nConnection: close\r\n\r\n`.replace(
          'NUL',
          '\u0000',
        ),
      );
    const strict = await rawHttp(arena.app, request(`Authorization: Bearer ${arena.admin}NUL`));
    assert.is(strict.status, 400, strict.text);

    // --insecure-http-parser (e.g. in NODE_OPTIONS) lets a NUL through to the app, which still refuses it.
    const lenient = createServer(
      { insecureHTTPParser: true },
      arena.app.container.get<HttpApp>(TYPES.HttpApp).callback(),
    );
    await new Promise<void>((resolve) => lenient.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(lenient.address() as AddressInfo).port}`;
      for (const [header, field] of [
        [`Authorization: Bearer ${arena.admin}NUL`, 'authorization'],
        ['X-Forwarded-For: 10.0.0.1NUL', 'x-forwarded-for'],
        ['Accept-Language: enNUL', 'accept-language'],
      ]) {
        const response = await rawHttp({ ...arena.app, url }, request(header!));
        assert.is(response.status, 400, response.text);
        const body = JSON.parse(response.text.slice(response.text.indexOf('\r\n\r\n') + 4)) as ErrorBody;
        assert.is(body.errors[0]!.extensions.code, 'INVALID_PAYLOAD', header);
        assert.is(body.errors[0]!.extensions.field, field, header);
      }
    } finally {
      await new Promise((resolve) => lenient.close(resolve));
    }
  });

  test.run();
}
