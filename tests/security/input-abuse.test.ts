import { request as httpRequest } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ErrorBody } from '../http/scenario.ts';
import type { TestResponse } from '../support/test-app.ts';
import {
  type Arena,
  assertIntact,
  assertNoLeak,
  assertRefused,
  bodyRoutes,
  bytes,
  CARGO,
  codeOf,
  expectError,
  openMemoryArena,
  q,
  rawHttp,
  rawRequest,
  removeStrayRows,
} from './attack-kit.ts';

/**
 * Hostile bodies and query strings: oversize, deeply nested, malformed UTF-8 and JSON, prototype-pollution
 * keys. Every one is a 4xx from the contract (or, where the input is legal, a normal answer), never a 500.
 */
const test = suite<{ arena: Arena }>('oversize, nested, malformed and prototype-polluting input');

const JSON_TYPE = { 'Content-Type': 'application/json' };
const MIB = 1024 * 1024;

test.before(async (context) => {
  context.arena = await openMemoryArena({ LOGIN_THROTTLE: 'false' });
});
test.after.each(({ arena }) => removeStrayRows(arena));
test.after(({ arena }) => arena.app.close());

function raw(arena: Arena, method: string, path: string, body: Uint8Array | string, token?: string) {
  return rawRequest(arena.app, method, path, typeof body === 'string' ? bytes(body) : body, {
    ...JSON_TYPE,
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Oversize

test('oversize body (1 MiB + 1 byte over http.bodyLimit) → 413 REQUEST_TOO_LARGE on every body route', async ({
  arena,
}) => {
  const big = JSON.stringify({ description: 'x'.repeat(MIB) });
  for (const [method, path, token] of bodyRoutes(arena)) {
    expectError(await raw(arena, method, path, big, token), 413, 'REQUEST_TOO_LARGE', `${method} ${path}`);
  }
  await assertIntact(arena, 'oversize bodies');
});

test('oversize body sent chunked, without Content-Length → 413 REQUEST_TOO_LARGE', async ({ arena }) => {
  const { status, chunked } = await new Promise<{ status: number; chunked: boolean }>((resolve, reject) => {
    const request = httpRequest(`${arena.app.url}/items/cargos`, {
      method: 'POST',
      headers: { ...JSON_TYPE, Authorization: `Bearer ${arena.admin}` },
    });
    request.on('response', (response) => {
      response.resume();
      resolve({
        status: response.statusCode ?? 0,
        chunked: request.getHeader('content-length') === undefined,
      });
    });
    // The server may answer and close before the client has sent everything.
    request.on('error', (error) => (request.writableEnded ? undefined : reject(error)));
    const chunk = `"${'x'.repeat(64 * 1024)}",`;
    request.write('[');
    let sent = 0;
    const pump = () => {
      while (sent < 40) {
        sent++;
        if (!request.write(chunk)) return void request.once('drain', pump);
      }
      request.end('"x"]');
    };
    pump();
  }).catch((error: NodeJS.ErrnoException) => {
    // A reset after the answer is fine; a reset before any answer is what this test guards against.
    throw new Error(`no answer to an oversize chunked body: ${error.code ?? error.message}`);
  });
  assert.ok(chunked, 'sent without Content-Length');
  assert.is(status, 413);
  await assertIntact(arena, 'chunked oversize body');
});

test('a huge string just under the limit into a short column → 400 FAILED_VALIDATION; into text it is stored', async ({
  arena,
}) => {
  const long = 'x'.repeat(MIB - 100);
  const refused = await arena.app.request('POST', '/items/cargos', {
    token: arena.admin,
    body: { code: long },
  });
  expectError(refused, 400, 'FAILED_VALIDATION', 'code');
  const stored = await arena.app.request('POST', '/items/cargos', {
    token: arena.admin,
    body: { description: long },
  });
  assert.is(stored.status, 200);
  const id = (stored.body as { id: string }).id;
  assert.is((await arena.app.request('DELETE', `/items/cargos/${id}`, { token: arena.admin })).status, 204);
  await assertIntact(arena, 'long strings');
});

test('an object with 50,000 keys, or 20,000 items or keys, → 400, quickly', async ({ arena }) => {
  const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, index) => [`k${index}`, 1]));
  const started = performance.now();
  for (const [method, path, token] of bodyRoutes(arena)) {
    const response = await arena.app.request(method, path, { token, body: wide });
    assertRefused(response, `${method} ${path}`);
  }
  const many = Array.from({ length: 20_000 }, () => ({}));
  expectError(
    await arena.app.request('POST', '/items/cargos', { token: arena.admin, body: many }),
    400,
    'INVALID_PAYLOAD',
  );
  const keys = Array.from({ length: 20_000 }, () => CARGO.fish);
  expectError(
    await arena.app.request('DELETE', '/items/cargos', { token: arena.admin, body: keys }),
    400,
    'INVALID_PAYLOAD',
  );
  assert.ok(performance.now() - started < 5000, 'refused without grinding');
  await assertIntact(arena, 'wide bodies');
});

const NUMBER_FIELDS = ['temperature', 'crates', 'description', 'manifest', 'is_deleted', 'id'];

/**
 * JSON numbers beyond a double parse to ±Infinity, to the nearest double, or to 0: the fields each one is
 * refused for (400 FAILED_VALIDATION naming the field); every other field stores it (200).
 */
const OUT_OF_RANGE_REFUSALS: Record<string, string[]> = {
  // ±Infinity: no column type holds it.
  '1e400': NUMBER_FIELDS,
  '-1e400': NUMBER_FIELDS,
  // 2^64 rounds to a double: a float, a JSON value and text take it; an integer, a boolean and a uuid do not.
  '18446744073709551616': ['crates', 'is_deleted', 'id'],
  // Underflow and negative zero are 0: a valid float, integer, text, JSON value and boolean (false); no uuid.
  '1e-400': ['id'],
  '-0': ['id'],
};

test('numbers out of every range (1e400, -1e400, 2^64, 1e-400, -0) → 400 where the column cannot hold them, else 200', async ({
  arena,
}) => {
  for (const [number, refused] of Object.entries(OUT_OF_RANGE_REFUSALS)) {
    for (const field of NUMBER_FIELDS) {
      const response = await raw(arena, 'POST', '/items/cargos', `{"${field}":${number}}`, arena.admin);
      const label = `${field}=${number}`;
      if (refused.includes(field)) {
        expectError(response, 400, 'FAILED_VALIDATION', label);
        assert.is((response.body as ErrorBody).errors[0]?.extensions.field, field, label);
      } else {
        assert.is(response.status, 200, `${label}: ${response.text}`);
        const id = (response.body as { id: string }).id;
        await arena.app.request('DELETE', `/items/cargos/${id}`, { token: arena.admin });
      }
    }
  }
  await assertIntact(arena, 'numbers');
});

// ---------------------------------------------------------------------------------------------
// Deep nesting

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

test('deeply nested JSON bodies (100,000 levels of arrays and objects) → 400, never a stack overflow', async ({
  arena,
}) => {
  for (const nested of [nestedArrays(100_000), nestedObjects(100_000)]) {
    for (const [method, path, token] of bodyRoutes(arena)) {
      const response = await raw(arena, method, path, nested, token);
      assertRefused(response, `${method} ${path} ${nested.slice(0, 10)}`);
    }
    for (const field of ['manifest', 'description']) {
      const response = await raw(arena, 'POST', '/items/cargos', `{"${field}":${nested}}`, arena.admin);
      assertRefused(response, `nested ${field}`);
    }
  }
  // Just past the limit every body has (100 levels), whatever the route.
  const justTooDeep = `{"manifest":${nestedArrays(100)}}`;
  expectError(await raw(arena, 'POST', '/items/cargos', justTooDeep, arena.admin), 400, 'INVALID_PAYLOAD');
  // Deep, but inside a JSON column's own limit: stored as given.
  const moderate = JSON.parse(nestedObjects(30));
  const stored = await arena.app.request('POST', '/items/cargos', {
    token: arena.admin,
    body: { manifest: moderate },
  });
  assert.is(stored.status, 200, stored.text);
  assert.equal((stored.body as { manifest: unknown }).manifest, moderate);
  await arena.app.request('DELETE', `/items/cargos/${(stored.body as { id: string }).id}`, {
    token: arena.admin,
  });
  await assertIntact(arena, 'nested bodies');
});

test('deeply nested filters in write-by-query bodies and permissions → 400, never a stack overflow', async ({
  arena,
}) => {
  // Built as text: JSON.stringify itself would overflow the test's stack on such depths.
  const deepFilter = `${'{"_and":['.repeat(50_000)}{}${']}'.repeat(50_000)}`;
  const attempts: Array<[string, string]> = [
    ['DELETE', `{"query":{"filter":${deepFilter}}}`],
    ['PATCH', `{"query":{"filter":${deepFilter}},"data":{"description":"x"}}`],
  ];
  for (const [method, body] of attempts) {
    assertRefused(
      await raw(arena, method, '/items/cargos', body, arena.admin),
      `${method} deep filter`,
      [400],
    );
  }
  for (const key of ['permissions', 'validation']) {
    const body = `{"role":null,"collection":"cargos","action":"read","${key}":${deepFilter},"fields":["*"]}`;
    assertRefused(await raw(arena, 'POST', '/permissions', body, arena.admin), `permission ${key}`, [400]);
  }
  await assertIntact(arena, 'nested filters');
});

test('deeply nested filters in the query string (JSON and bracket form) → 400 INVALID_QUERY', async ({
  arena,
}) => {
  const json = `${'{"_or":['.repeat(300)}{}${']}'.repeat(300)}`;
  expectError(
    await arena.app.request('GET', `/items/cargos?filter=${q(json)}`, { token: arena.admin }),
    400,
    'INVALID_QUERY',
  );
  const bracket = `filter${'[_and][0]'.repeat(60)}[id][_null]=true`;
  expectError(
    await arena.app.request('GET', `/items/cargos?${bracket}`, { token: arena.admin }),
    400,
    'INVALID_QUERY',
  );
  const deepParam = `sort${'[a]'.repeat(200)}=id`;
  expectError(
    await arena.app.request('GET', `/items/cargos?${deepParam}`, { token: arena.admin }),
    400,
    'INVALID_QUERY',
  );
});

// ---------------------------------------------------------------------------------------------
// Malformed JSON and UTF-8

test('malformed JSON (truncated, trailing garbage, comments, single quotes, NaN, bare scalars) → 400 INVALID_PAYLOAD', async ({
  arena,
}) => {
  const bodies = [
    '{"description": "x"',
    '{"description": "x"}}',
    '{"description": "x"} {"description": "y"}',
    "{'description': 'x'}",
    '{description: "x"}',
    '{"description": "x" /* comment */}',
    '{"temperature": NaN}',
    '{"temperature": Infinity}',
    '{"description": "x",}',
    '[1, 2, ]',
    '{"description": undefined}',
    '{"description": "\\x41"}',
    '{"description": "\\u00"}',
    '{"description": "tab\tinside"}',
    '\u0000',
    '{"a":1}\u0000',
    'null',
    'true',
    '42',
    '"text"',
  ];
  for (const body of bodies) {
    for (const [method, path, token] of bodyRoutes(arena)) {
      const response = await raw(arena, method, path, body, token);
      expectError(response, 400, 'INVALID_PAYLOAD', `${method} ${path} ${JSON.stringify(body)}`);
    }
  }
  await assertIntact(arena, 'malformed JSON');
});

/** Byte sequences that are not UTF-8 (RFC 3629): each makes the JSON text around it invalid (RFC 8259 §8.1). */
const INVALID_UTF8: ReadonlyArray<[string, number[]]> = [
  ['a lone continuation byte', [0x80]],
  ['0xFF', [0xff]],
  ['0xC3 0x28 (a broken two-byte sequence)', [0xc3, 0x28]],
  ['an overlong "/" (0xC0 0xAF)', [0xc0, 0xaf]],
  ['an encoded surrogate (0xED 0xA0 0x80)', [0xed, 0xa0, 0x80]],
  ['a code point above U+10FFFF (0xF4 0x90 0x80 0x80)', [0xf4, 0x90, 0x80, 0x80]],
  ['a truncated three-byte sequence', [0xe2, 0x82]],
];

test('malformed UTF-8 bytes inside JSON strings and keys → 400 INVALID_PAYLOAD, nothing stored', async ({
  arena,
}) => {
  for (const [name, sequence] of INVALID_UTF8) {
    const inValue = bytes('{"description":"a', sequence, 'b"}');
    const inKey = bytes('{"descr', sequence, 'iption":"x"}');
    const atEnd = bytes('{"description":"x"}', sequence);
    for (const [method, path, token] of bodyRoutes(arena)) {
      for (const body of [inValue, inKey, atEnd]) {
        const response = await raw(arena, method, path, body, token);
        expectError(response, 400, 'INVALID_PAYLOAD', `${method} ${path} ${name}`);
      }
    }
  }
  // Valid UTF-8 of every length is stored exactly as sent (and a leading BOM is ignored).
  const text = 'é ß 中 🐟 \u{10FFFF}';
  const stored = await raw(
    arena,
    'POST',
    '/items/cargos',
    bytes([0xef, 0xbb, 0xbf], `{"description":"${text}"}`),
    arena.admin,
  );
  assert.is(stored.status, 200, stored.text);
  assert.is((stored.body as { description: string }).description, text);
  await arena.app.request('DELETE', `/items/cargos/${(stored.body as { id: string }).id}`, {
    token: arena.admin,
  });
  const login = await raw(arena, 'POST', '/auth/login', bytes('{"email":"a@b.c","password":"', [0xff], '"}'));
  expectError(login, 400, 'INVALID_PAYLOAD', 'login password');
  await assertIntact(arena, 'malformed UTF-8 bodies');
});

test('lone surrogate escapes ("\\ud800") in JSON bodies → stored or 400, never 500', async ({ arena }) => {
  for (const text of ['\\ud800', '\\udfff', 'a\\ud800b', '\\udc00\\ud800']) {
    const response = await raw(arena, 'POST', '/items/cargos', `{"description":"${text}"}`, arena.admin);
    assert.ok(
      response.status === 200 || response.status === 400,
      `${text}: ${response.status} ${response.text}`,
    );
    if (response.status === 400) assertRefused(response, text);
    else
      await arena.app.request('DELETE', `/items/cargos/${(response.body as { id: string }).id}`, {
        token: arena.admin,
      });
  }
  await assertIntact(arena, 'lone surrogates');
});

/** Percent-encoded bytes that do not decode as UTF-8, and a NUL. */
const BAD_ESCAPES = [
  '%C3%28',
  '%FF',
  '%C0%AF',
  '%ED%A0%80',
  '%E2%82',
  '%80',
  '%',
  '%G1',
  '%00',
  '%F4%90%80%80',
];

test('percent-encoded invalid UTF-8 in every query parameter and name → 400 INVALID_QUERY, never read as text', async ({
  arena,
}) => {
  for (const badEscape of BAD_ESCAPES.filter((sequence) => sequence !== '%00')) {
    const queries = [
      `filter[description][_eq]=${badEscape}`,
      `filter[description${badEscape}][_eq]=x`,
      `filter[description][_eq${badEscape}]=x`,
      `filter=${badEscape}`,
      `filter=${q('{"description":{"_eq":"')}${badEscape}${q('"}}')}`,
      `search=${badEscape}`,
      `search=a${badEscape}b`,
      `fields=${badEscape}`,
      `fields=id,${badEscape}`,
      `sort=${badEscape}`,
      `limit=${badEscape}`,
      `offset=${badEscape}`,
      `page=${badEscape}`,
      `meta=${badEscape}`,
      `${badEscape}=1`,
    ];
    for (const query of queries) {
      for (const token of [arena.admin, arena.operator]) {
        const response = await arena.app.request('GET', `/items/cargos?${query}`, { token });
        expectError(response, 400, 'INVALID_QUERY', query);
      }
      const single = await arena.app.request('GET', `/items/cargos/${CARGO.fish}?${query}`, {
        token: arena.admin,
      });
      expectError(single, 400, 'INVALID_QUERY', `single item ${query}`);
    }
    // Writes take ?fields= too; nothing is written when it cannot be read.
    const write = await arena.app.request('POST', `/items/cargos?fields=${badEscape}`, {
      token: arena.admin,
      body: { description: 'must not be stored' },
    });
    expectError(write, 400, 'INVALID_QUERY', `write ${badEscape}`);
    // The token is read before anything else and is simply not a token.
    const token = await arena.app.request('GET', `/items/cargos?access_token=${badEscape}`);
    expectError(token, 401, 'INVALID_TOKEN', `access_token=${badEscape}`);
  }
  await assertIntact(arena, 'invalid UTF-8 in query strings');
});

test('percent-encoded invalid UTF-8 in path segments (collection, id, users, roles) → 4xx, never 500', async ({
  arena,
}) => {
  for (const badEscape of BAD_ESCAPES) {
    const paths = [
      `/items/${badEscape}`,
      `/items/cargos${badEscape}`,
      `/items/cargos/${badEscape}`,
      `/items/cargos/${CARGO.fish}${badEscape}`,
      `/users/${badEscape}`,
      `/roles/${badEscape}`,
      `/permissions/${badEscape}`,
      `/collections/${badEscape}`,
      `/fields/cargos/${badEscape}`,
      `/${badEscape}`,
    ];
    for (const path of paths) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const body = method === 'PATCH' ? { description: 'x' } : undefined;
        const response = await arena.app.request(method, path, { token: arena.admin, body });
        assertRefused(response, `${method} ${path}`);
      }
    }
  }
  await assertIntact(arena, 'invalid UTF-8 in paths');
});

test('raw invalid UTF-8 bytes in the request line (path, query) → 400 from the HTTP parser, never the app', async ({
  arena,
}) => {
  for (const target of [
    [0xff],
    bytes('items/', [0xc3, 0x28]),
    bytes('items/cargos?search=', [0xff]),
    bytes('items/cargos/', [0x80]),
  ]) {
    const response = await rawHttp(
      arena.app,
      bytes(
        'GET /',
        Array.from(target),
        ` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${arena.admin}\r\nConnection: close\r\n\r\n`,
      ),
    );
    assert.is(response.status, 400, response.text);
  }
  await assertIntact(arena, 'raw bytes in the request line');
});

test('a NUL character in filter values, search, keys and bodies → 400, never a database error', async ({
  arena,
}) => {
  for (const query of [
    'filter[description][_eq]=a%00b',
    `filter=${q({ description: { _contains: 'a\u0000' } })}`,
    `filter=${q({ manifest: { _eq: { 'a\u0000': 1 } } })}`,
    'search=%00',
    'filter[code][_in]=a,%00',
  ]) {
    expectError(
      await arena.app.request('GET', `/items/cargos?${query}`, { token: arena.admin }),
      400,
      'INVALID_QUERY',
      query,
    );
  }
  for (const body of [{ description: 'a\u0000b' }, { manifest: { 'k\u0000': 1 } }, { manifest: 'a\u0000' }]) {
    const response = await arena.app.request('POST', '/items/cargos', { token: arena.admin, body });
    assertRefused(response, JSON.stringify(body), [400]);
  }
  await assertIntact(arena, 'NUL characters');
});

// ---------------------------------------------------------------------------------------------
// Prototype pollution

function assertPrototypeClean(label: string) {
  for (const name of ['polluted', 'admin', 'admin_access', 'isAdmin', 'role', 'status', 'x']) {
    assert.not.ok(name in Object.prototype, `${label}: Object.prototype.${name} was set`);
    assert.is(({} as Record<string, unknown>)[name], undefined, `${label}: {}.${name}`);
  }
}

const POLLUTERS = [
  '{"__proto__":{"polluted":true,"admin":true,"admin_access":true}}',
  '{"constructor":{"prototype":{"polluted":true,"admin_access":true}}}',
  '{"description":"x","__proto__":{"polluted":true}}',
  '[{"__proto__":{"polluted":true}}]',
  '{"data":{"__proto__":{"polluted":true}},"keys":[]}',
  '{"query":{"filter":{"__proto__":{"_eq":1}}},"data":{"description":"x"}}',
];

test('prototype-pollution keys (__proto__, constructor) in bodies → 400 or ignored; Object.prototype untouched', async ({
  arena,
}) => {
  for (const body of POLLUTERS) {
    for (const [method, path, token] of bodyRoutes(arena)) {
      const response = await raw(arena, method, path, body, token);
      assertNotCrashed(response, `${method} ${path} ${body}`);
      assertPrototypeClean(`${method} ${path} ${body}`);
    }
  }
  // A `__proto__` key (escaped or not) is refused as soon as the body is read, on every route.
  for (const key of ['__proto__', '\\u005f_proto__', '__pro\\u0074o__']) {
    for (const [method, path, token] of bodyRoutes(arena)) {
      const body = `{"description":"x","nested":[{"${key}":{"polluted":true}}]}`;
      expectError(await raw(arena, method, path, body, token), 400, 'INVALID_PAYLOAD', `${path} ${key}`);
    }
  }
  // Other prototype member names are unknown fields of an item, named as such.
  for (const key of [
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '__defineGetter__',
    'valueOf',
  ]) {
    const response = await raw(
      arena,
      'POST',
      '/items/cargos',
      `{"description":"x","${key}":{"polluted":true}}`,
      arena.admin,
    );
    expectError(response, 400, 'INVALID_PAYLOAD', key);
    assert.is(
      (response.body as { errors: Array<{ extensions: { field: string } }> }).errors[0]!.extensions.field,
      key,
    );
  }
  // The operator is still no admin, and the admin-only list still refuses them.
  expectError(await arena.app.request('GET', '/users', { token: arena.operator }), 403, 'FORBIDDEN');
  await assertIntact(arena, 'prototype keys in bodies');
});

test('prototype-pollution keys in a user’s own PATCH and in login bodies grant nothing', async ({
  arena,
}) => {
  const me = await raw(
    arena,
    'PATCH',
    '/users/me',
    '{"__proto__":{"role":null,"admin_access":true}}',
    arena.operator,
  );
  assertRefused(me, 'PATCH /users/me');
  const login = await raw(
    arena,
    'POST',
    '/auth/login',
    '{"email":"nobody@example.com","password":"x","__proto__":{"email":"admin"}}',
  );
  expectError(login, 400, 'INVALID_PAYLOAD');
  const constructorKey = await raw(
    arena,
    'POST',
    '/auth/login',
    '{"email":"nobody@example.com","password":"x","constructor":{"prototype":{"email":"admin"}}}',
  );
  expectError(constructorKey, 401, 'INVALID_CREDENTIALS');
  assertPrototypeClean('own PATCH and login');
  expectError(await arena.app.request('GET', '/users', { token: arena.operator }), 403, 'FORBIDDEN');
});

test('prototype-pollution keys in filters (JSON and bracket form) and parameters → 400 or ignored, never widened', async ({
  arena,
}) => {
  const queries = [
    `filter=${q('{"__proto__":{"_eq":1}}')}`,
    `filter=${q('{"constructor":{"_eq":1}}')}`,
    `filter=${q('{"description":{"__proto__":{"polluted":true}}}')}`,
    `filter=${q('{"description":{"constructor":"x"}}')}`,
    `filter=${q('{"_or":{"__proto__":[]}}')}`,
    `filter=${q('{"_and":[{"__proto__":{"polluted":true}}]}')}`,
    'filter[__proto__][polluted]=true',
    'filter[constructor][prototype][polluted]=true',
    'filter[description][__proto__]=x',
    'filter[description][constructor]=x',
    'filter[toString][_eq]=x',
    'filter[hasOwnProperty][_eq]=x',
    '__proto__[polluted]=true',
    'constructor[prototype][polluted]=true',
    'fields=__proto__',
    'fields=constructor',
    'sort=__proto__',
    'sort=-constructor',
    'meta=__proto__',
    'hasOwnProperty=1&toString=1&valueOf=1',
    'limit[__proto__]=1',
  ];
  for (const query of queries) {
    for (const who of ['admin', 'operator'] as const) {
      const response = await arena.app.request('GET', `/items/cargos?${query}`, { token: arena[who] });
      assertNotCrashed(response, query);
      assertPrototypeClean(query);
      if (response.status === 200 && who === 'operator') {
        // An ignored key may not widen what the operator sees.
        const ids = (response.body as Array<{ id: string }>).map((item) => item.id).sort();
        assert.ok(!ids.includes(CARGO.archived), `${query} widened the operator's rows`);
      } else if (response.status !== 200) {
        assert.ok(
          ['INVALID_QUERY', 'FORBIDDEN'].includes(String(codeOf(response))),
          `${query}: ${response.text}`,
        );
      }
    }
  }
  // A filter stored in a permission cannot smuggle them in either.
  const permission = await arena.app.request('POST', '/permissions', {
    token: arena.admin,
    body: JSON.parse(
      '{"role":null,"collection":"cargos","action":"read","permissions":{"__proto__":{"_eq":1}},"fields":["*"]}',
    ),
  });
  assertRefused(permission, 'permission with __proto__', [400]);
  assertPrototypeClean('permission');
  await assertIntact(arena, 'prototype keys in filters');
});

function assertNotCrashed(response: TestResponse, label: string) {
  assert.ok(response.status < 500, `${label}: ${response.status} ${response.text.slice(0, 300)}`);
  if (response.status >= 400) assertRefused(response, label);
  else assertNoLeak(response, label);
}

test.run();
