import { performance } from 'node:perf_hooks';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import type { TestResponse } from '../support/test-app.ts';
import {
  type Arena,
  assertIntact,
  assertNoLeak,
  assertRefused,
  CARGO,
  CARGO_ROWS,
  closeArena,
  codeOf,
  expectError,
  openArena,
  q,
  removeStrayRows,
} from './attack-kit.ts';

/**
 * SQL injection through every query parameter, path segment and body key of the item API, on every
 * backend (memory, PGlite, and PostgreSQL when TEST_DATABASE_URL is set). After each attack the table and
 * the system tables are intact, no answer is a 500, and no answer shows SQL or a stack trace.
 */
const PAYLOADS = [
  "'; drop table cargos; --",
  "' or '1'='1",
  '" or ""="',
  '1; delete from cargos',
  '1 or 1=1',
  "') union (select id::text, password_hash from datagate_users) --",
  "\\'; drop table cargos; --",
  '$$; drop table cargos; $$',
  'cargos"; drop table cargos; --',
  "x' || pg_sleep(3) || '",
  '/**/or/**/1=1',
  "%' or 1=1 --",
  "'::text); truncate datagate_users; --",
  '1) or (1=1',
];

/** Short enough for `code` (varchar(32)). */
const SHORT_PAYLOADS = PAYLOADS.filter((payload) => payload.length <= 32);

type Who = 'admin' | 'operator';
const CALLERS: ReadonlyArray<Who> = ['admin', 'operator'];
/** Rows each caller may see: the operator's permission hides the deleted one. */
const VISIBLE: Record<Who, string[]> = {
  admin: [CARGO.fish, CARGO.bananas, CARGO.archived].sort(),
  operator: [CARGO.fish, CARGO.bananas].sort(),
};

for (const [target, test] of suitePerBackend<{ arena: Arena }>(
  backends(),
  (backend) => `SQL injection on ${backend}`,
)) {
  test.before(async (context) => {
    context.arena = await openArena(target);
  });
  test.after.each(({ arena }) => removeStrayRows(arena));
  test.after(({ arena }) => closeArena(arena, target));

  /** GET /items/cargos as the given caller; never a 500, never an internal in the answer, quick. */
  async function list(arena: Arena, who: Who, query: string): Promise<TestResponse> {
    const started = performance.now();
    const response = await arena.app.request('GET', `/items/cargos?${query}`, { token: arena[who] });
    // pg_sleep(3) in a payload would show here if it ever ran.
    assert.ok(performance.now() - started < 2500, `${query} took too long: did a payload run?`);
    assert.ok(response.status < 500, `${who} ${query} → ${response.status} ${response.text}`);
    assertNoLeak(response, `${who} ${query}`);
    return response;
  }

  const ids = (response: TestResponse) =>
    (response.body as Array<{ id: string }>).map((item) => item.id).sort();

  /** Every caller gets a refusal with one of the given codes for every query. */
  async function refusedForAll(arena: Arena, queries: string[], codes: string[]) {
    for (const who of CALLERS) {
      for (const query of queries) {
        const response = await list(arena, who, query);
        assertRefused(response, `${who} ${decodeURIComponent(query)}`);
        assert.ok(codes.includes(String(codeOf(response))), `${query}: code ${codeOf(response)}`);
      }
    }
  }

  test('SQL in filter keys (JSON form) → 400 INVALID_QUERY, table intact', async ({ arena }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `filter=${q({ [payload]: { _eq: 'x' } })}`,
      `filter=${q({ _or: [{ [payload]: { _null: true } }] })}`,
      `filter=${q({ [`description${payload}`]: { _eq: 'x' } })}`,
    ]);
    await refusedForAll(arena, queries, ['INVALID_QUERY']);
    await assertIntact(arena, 'filter keys');
  });

  test('SQL in filter keys (bracket form) → 400 INVALID_QUERY, table intact', async ({ arena }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `filter[${q(payload)}][_eq]=x`,
      `filter[_and][0][${q(payload)}][_eq]=x`,
      `filter[${q(`description${payload}`)}][_null]=true`,
    ]);
    await refusedForAll(arena, queries, ['INVALID_QUERY']);
    await assertIntact(arena, 'bracket filter keys');
  });

  test('SQL in filter operators (JSON and bracket form) → 400 INVALID_QUERY, table intact', async ({
    arena,
  }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `filter=${q({ description: { [payload]: 'x' } })}`,
      `filter[description][${q(payload)}]=x`,
      `filter[description][${q(`_eq${payload}`)}]=x`,
      `filter=${q({ [`_or${payload}`]: [] })}`,
    ]);
    await refusedForAll(arena, queries, ['INVALID_QUERY']);
    await assertIntact(arena, 'filter operators');
  });

  test('SQL in filter values on text columns (JSON and bracket, every text operator) → compared as data', async ({
    arena,
  }) => {
    for (const who of CALLERS) {
      for (const payload of PAYLOADS) {
        for (const operator of ['_eq', '_icontains', '_starts_with', '_nends_with']) {
          for (const query of [
            `filter=${q({ description: { [operator]: payload } })}`,
            `filter[code][${operator}]=${q(payload)}`,
          ]) {
            if (operator.startsWith('_n')) continue; // the negation is checked below
            const response = await list(arena, who, query);
            assert.is(response.status, 200, `${who} ${payload}: ${response.text}`);
            assert.equal(response.body, [], `${who} ${operator} ${payload} matches nothing`);
          }
        }
        // A negation matches every visible row: the payload was a value, not a clause.
        for (const operator of ['_neq', '_nends_with']) {
          const negated = await list(arena, who, `filter[description][${operator}]=${q(payload)}`);
          assert.equal(ids(negated), VISIBLE[who], `${who} ${operator} ${payload}`);
        }
      }
    }
    await assertIntact(arena, 'filter values');
  });

  test('SQL in filter values on typed columns (number, integer, boolean, uuid, json) → 400 INVALID_QUERY', async ({
    arena,
  }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `filter[temperature][_gt]=${q(payload)}`,
      `filter=${q({ crates: { _eq: payload } })}`,
      `filter[id][_eq]=${q(payload)}`,
      `filter=${q({ id: { _eq: `${CARGO.fish}${payload}` } })}`,
    ]);
    await refusedForAll(arena, queries, ['INVALID_QUERY']);
    // A JSON operand is a JSON value: a string payload is a JSON string that matches nothing.
    for (const who of CALLERS) {
      for (const payload of PAYLOADS) {
        const response = await list(arena, who, `filter=${q({ manifest: { _eq: payload } })}`);
        assert.equal(response.body, [], `manifest ${payload}`);
      }
    }
    // The admin may filter on is_deleted (the operator may not: 403); a payload is no boolean.
    for (const payload of PAYLOADS) {
      expectError(
        await list(arena, 'admin', `filter[is_deleted][_eq]=${q(payload)}`),
        400,
        'INVALID_QUERY',
        payload,
      );
    }
    await assertIntact(arena, 'typed filter values');
  });

  test('SQL in list operands (_in, _nin, _between, comma lists) → compared as data or 400', async ({
    arena,
  }) => {
    for (const who of CALLERS) {
      for (const payload of PAYLOADS) {
        const inList = await list(
          arena,
          who,
          `filter=${q({ description: { _in: [payload, `${payload}'`] } })}`,
        );
        assert.equal(inList.body, [], `_in ${payload}`);
        const commaList = await list(arena, who, `filter[code][_in]=${q(payload)}`);
        assert.is(commaList.status, 200);
        assert.equal(commaList.body, [], `comma _in ${payload}`);
        const notIn = await list(arena, who, `filter=${q({ description: { _nin: [payload] } })}`);
        assert.equal(ids(notIn), VISIBLE[who], `_nin ${payload}`);
        const between = await list(
          arena,
          who,
          `filter=${q({ description: { _between: [payload, payload] } })}`,
        );
        assert.equal(between.body, [], `_between ${payload}`);
        assertRefused(
          await list(arena, who, `filter[temperature][_between]=0,${q(payload)}`),
          `_between ${payload}`,
        );
        assertRefused(
          await list(arena, who, `filter=${q({ crates: { _in: [1, payload] } })}`),
          `_in on an integer ${payload}`,
        );
      }
    }
    await assertIntact(arena, 'list operands');
  });

  test('SQL in dynamic values ($NOW offsets, $CURRENT_USER suffixes) → 400 or compared as data', async ({
    arena,
  }) => {
    for (const who of CALLERS) {
      for (const payload of PAYLOADS) {
        for (const query of [
          `filter[temperature][_lt]=${q(`$NOW(${payload})`)}`,
          `filter[id][_eq]=${q(`$CURRENT_USER${payload}`)}`,
          `filter=${q({ id: { _eq: `$CURRENT_ROLE'${payload}` } })}`,
        ]) {
          assertRefused(await list(arena, who, query), `${who} ${query}`);
        }
        const text = await list(arena, who, `filter[description][_eq]=${q(`$NOW(${payload})`)}`);
        assert.ok(text.status === 200 || text.status === 400, text.text);
        if (text.status === 200) assert.equal(text.body, []);
      }
    }
    await assertIntact(arena, 'dynamic values');
  });

  test('SQL in sort → 400 INVALID_QUERY, table intact', async ({ arena }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `sort=${q(payload)}`,
      `sort=${q(`-${payload}`)}`,
      `sort=${q(`id${payload}`)}`,
      `sort=${q(`id,${payload}`)}`,
      `sort[]=id&sort[]=${q(payload)}`,
    ]);
    await refusedForAll(arena, [...queries, `sort=${q('id desc; drop table cargos')}`], ['INVALID_QUERY']);
    await assertIntact(arena, 'sort');
  });

  test('SQL in fields → 400 INVALID_QUERY, table intact', async ({ arena }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `fields=${q(payload)}`,
      `fields=${q(`id,${payload}`)}`,
      `fields=${q(`*,${payload}`)}`,
      `fields[]=${q(payload)}`,
    ]);
    await refusedForAll(
      arena,
      [...queries, `fields=${q('id,(select password_hash from datagate_users limit 1)')}`],
      ['INVALID_QUERY'],
    );
    for (const who of CALLERS) {
      const single = await arena.app.request('GET', `/items/cargos/${CARGO.fish}?fields=${q(PAYLOADS[0])}`, {
        token: arena[who],
      });
      expectError(single, 400, 'INVALID_QUERY', `${who} single item`);
    }
    await assertIntact(arena, 'fields');
  });

  test('SQL in search → a literal substring that matches nothing; % and _ stay literal', async ({
    arena,
  }) => {
    for (const who of CALLERS) {
      for (const payload of PAYLOADS) {
        const response = await list(arena, who, `search=${q(payload)}`);
        assert.is(response.status, 200, response.text);
        assert.equal(response.body, [], `${who} search ${payload}`);
      }
      for (const wildcard of ['%', '_', '%_', '\\']) {
        const response = await list(arena, who, `search=${q(wildcard)}`);
        const expected = wildcard === '\\' ? [] : [CARGO.bananas];
        assert.equal(ids(response), expected, `${who} search ${wildcard}`);
      }
    }
    await assertIntact(arena, 'search');
  });

  test('SQL in limit, offset and page → 400 INVALID_QUERY, table intact', async ({ arena }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `limit=${q(payload)}`,
      `limit=${q(`1${payload}`)}`,
      `offset=${q(`0${payload}`)}`,
      `page=${q(`1${payload}`)}`,
      `limit=1&offset=${q(payload)}`,
    ]);
    await refusedForAll(arena, [...queries, 'limit=1e3', 'limit=0x10', 'offset=1.5'], ['INVALID_QUERY']);
    await assertIntact(arena, 'limit/offset/page');
  });

  test('SQL in meta → 400 INVALID_QUERY, table intact', async ({ arena }) => {
    const queries = PAYLOADS.flatMap((payload) => [
      `meta=${q(payload)}`,
      `meta=${q(`total_count,${payload}`)}`,
    ]);
    await refusedForAll(arena, queries, ['INVALID_QUERY']);
    await assertIntact(arena, 'meta');
  });

  test('SQL in access_token → 401 INVALID_TOKEN; in parameter names → ignored', async ({ arena }) => {
    for (const payload of PAYLOADS) {
      const response = await arena.app.request('GET', `/items/cargos?access_token=${q(payload)}`);
      expectError(response, 401, 'INVALID_TOKEN', payload);
      const named = await list(arena, 'operator', `${q(payload)}=1`);
      assert.equal(ids(named), VISIBLE.operator, `parameter named ${payload}`);
    }
    await assertIntact(arena, 'access_token');
  });

  test('SQL in the collection path segment → 403 for users, 401 anonymous, 404 for admins', async ({
    arena,
  }) => {
    const names = [
      ...PAYLOADS,
      ...PAYLOADS.map((payload) => `cargos${payload}`),
      'datagate_users',
      'DATAGATE_USERS',
      'public.datagate_users',
      'public.cargos',
      '"cargos"',
      'information_schema.tables',
      'pg_catalog.pg_authid',
      'pg_user',
      'cargos/../datagate_users',
    ];
    for (const name of names) {
      const path = `/items/${encodeURIComponent(name)}`;
      expectError(
        await arena.app.request('GET', path, { token: arena.admin }),
        404,
        'COLLECTION_NOT_FOUND',
        name,
      );
      expectError(await arena.app.request('GET', path, { token: arena.operator }), 403, 'FORBIDDEN', name);
      expectError(await arena.app.request('GET', path), 401, 'UNAUTHENTICATED', name);
      // Writes as the admin, whom no permission check stops before the table lookup.
      const writes: Array<[string, string, unknown]> = [
        ['POST', path, { description: 'x' }],
        ['PATCH', path, { keys: [CARGO.fish], data: { description: 'x' } }],
        ['DELETE', path, [CARGO.fish]],
        ['GET', `${path}/${CARGO.fish}`, undefined],
      ];
      for (const [method, target, body] of writes) {
        const response = await arena.app.request(method, target, { token: arena.admin, body });
        expectError(response, 404, 'COLLECTION_NOT_FOUND', `${method} ${name}`);
      }
    }
    await assertIntact(arena, 'collection names');
  });

  test('SQL in schema names (/collections, /fields, /relations paths and bodies, the DDL side) → 4xx, nothing dropped or created', async ({
    arena,
  }) => {
    const token = arena.admin;
    let oddDefaults = 0;
    for (const payload of [...PAYLOADS, 'cargos; drop table datagate_users', 'cargos" cascade; --']) {
      const name = encodeURIComponent(payload);
      const attempts: Array<[string, string, unknown]> = [
        ['GET', `/collections/${name}`, undefined],
        ['DELETE', `/collections/${name}`, undefined],
        ['GET', `/fields/${name}`, undefined],
        ['GET', `/fields/cargos/${name}`, undefined],
        ['DELETE', `/fields/cargos/${name}`, undefined],
        ['DELETE', `/fields/${name}/description`, undefined],
        [
          'POST',
          '/collections',
          {
            collection: payload,
            fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
          },
        ],
        ['POST', '/collections', { collection: 'fresh_table', fields: [{ field: payload, type: 'text' }] }],
        ['POST', '/collections', { collection: 'fresh_table', fields: [{ field: 'a', type: payload }] }],
        [
          'POST',
          '/collections',
          {
            collection: 'fresh_table',
            fields: [{ field: 'a', type: 'text', schema: { default_value: payload } }],
          },
        ],
        ['POST', '/fields/cargos', { field: payload, type: 'text' }],
        ['POST', '/fields/cargos', { field: 'extra', type: 'string', schema: { max_length: payload } }],
        ['POST', `/fields/${name}`, { field: 'extra', type: 'text' }],
        ['GET', `/relations/${name}`, undefined],
        ['GET', `/relations/cargos/${name}`, undefined],
        ['PATCH', `/relations/cargos/${name}`, { schema: { on_delete: 'CASCADE' } }],
        ['DELETE', `/relations/cargos/${name}`, undefined],
        ['POST', '/relations', { collection: payload, field: 'id', related_collection: 'cargos' }],
        ['POST', '/relations', { collection: 'cargos', field: payload, related_collection: 'cargos' }],
        ['POST', '/relations', { collection: 'cargos', field: 'id', related_collection: payload }],
        [
          'POST',
          '/relations',
          { collection: 'cargos', field: 'id', related_collection: 'cargos', schema: { on_delete: payload } },
        ],
        [
          'POST',
          '/relations',
          { collection: 'cargos', field: 'id', related_collection: 'cargos', meta: { one_field: payload } },
        ],
        ['POST', '/permissions', { role: null, collection: payload, action: 'read', fields: ['*'] }],
        ['POST', '/permissions', { role: null, collection: 'cargos', action: payload, fields: ['*'] }],
        ['POST', '/permissions', { role: null, collection: 'cargos', action: 'read', fields: [payload] }],
      ];
      for (const [method, path, body] of attempts) {
        const response = await arena.app.request(method, path, { token, body });
        if (response.status === 200 && method === 'POST' && path === '/collections') {
          // A default that is merely odd text is a legal default: the table is made, and dropped again.
          assert.is((await arena.app.request('DELETE', '/collections/fresh_table', { token })).status, 204);
          oddDefaults++;
          continue;
        }
        assertRefused(response, `${method} ${path} ${JSON.stringify(body)}`);
      }
    }
    assert.ok(oddDefaults > 0, 'text defaults holding SQL were stored as text');
    const collections = await arena.app.request('GET', '/collections', { token });
    assert.equal(
      (collections.body as Array<{ collection: string }>).map((collection) => collection.collection),
      ['cargos'],
    );
    const fields = await arena.app.request('GET', '/fields/cargos', { token });
    assert.is((fields.body as unknown[]).length, 7, 'no field added or dropped');
    await assertIntact(arena, 'schema names');
  });

  test('SQL in the item id path segment → 404 NOT_FOUND for GET, PATCH and DELETE', async ({ arena }) => {
    const keys = [...PAYLOADS, ...PAYLOADS.map((payload) => `${CARGO.fish}${payload}`), `${CARGO.fish}'`];
    for (const key of keys) {
      const path = `/items/cargos/${encodeURIComponent(key)}`;
      for (const who of CALLERS) {
        expectError(
          await arena.app.request('GET', path, { token: arena[who] }),
          404,
          'NOT_FOUND',
          `GET ${key}`,
        );
        expectError(
          await arena.app.request('PATCH', path, { token: arena[who], body: { description: 'hacked' } }),
          404,
          'NOT_FOUND',
          `PATCH ${key}`,
        );
        expectError(
          await arena.app.request('DELETE', path, { token: arena[who] }),
          404,
          'NOT_FOUND',
          `DELETE ${key}`,
        );
      }
    }
    await assertIntact(arena, 'item ids');
  });

  test('SQL in body keys on create and update → 400 INVALID_PAYLOAD naming the key, nothing written', async ({
    arena,
  }) => {
    for (const payload of PAYLOADS) {
      for (const key of [payload, `description${payload}`]) {
        for (const who of CALLERS) {
          const token = arena[who];
          const attempts: Array<[string, string, unknown]> = [
            ['POST', '/items/cargos', { description: 'x', [key]: 'x' }],
            ['POST', '/items/cargos', [{ description: 'ok' }, { [key]: 'x' }]],
            ['PATCH', `/items/cargos/${CARGO.fish}`, { [key]: 'x' }],
            ['PATCH', '/items/cargos', { keys: [CARGO.fish], data: { [key]: 'x' } }],
            ['PATCH', '/items/cargos', [{ id: CARGO.fish, [key]: 'x' }]],
            [
              'PATCH',
              '/items/cargos',
              { query: { filter: { id: { _eq: CARGO.fish } } }, data: { [key]: 'x' } },
            ],
          ];
          for (const [method, path, body] of attempts) {
            const response = await arena.app.request(method, path, { token, body });
            const label = `${who} ${method} ${path} key ${key}`;
            // A key the operator may not write could be refused as FORBIDDEN first; both are refusals.
            assertRefused(response, label, [400, 403]);
            if (response.status === 400) assert.is(codeOf(response), 'INVALID_PAYLOAD', label);
            assert.is(fieldOf(response), key, `${label}: the refusal names the key`);
          }
        }
      }
    }
    await assertIntact(arena, 'body keys');
  });

  test('SQL in body values on create and update → stored verbatim and read back as data', async ({
    arena,
  }) => {
    for (const who of CALLERS) {
      const token = arena[who];
      for (const payload of SHORT_PAYLOADS) {
        const created = await arena.app.request('POST', '/items/cargos', {
          token,
          body: { description: payload, code: payload, manifest: { [payload]: payload } },
        });
        assert.is(created.status, 200, created.text);
        const item = created.body as { id: string; description: string; code: string; manifest: unknown };
        assert.equal(
          [item.description, item.code, item.manifest],
          [payload, payload, { [payload]: payload }],
        );
        const read = await arena.app.request('GET', `/items/cargos/${item.id}`, { token });
        assert.is((read.body as { description: string }).description, payload);

        const updated = await arena.app.request('PATCH', `/items/cargos/${item.id}`, {
          token,
          body: { description: `${payload}${payload}` },
        });
        assert.is((updated.body as { description: string }).description, `${payload}${payload}`);
        const removed = await arena.app.request('DELETE', `/items/cargos/${item.id}`, { token });
        assert.is(removed.status, 204);
      }
    }
    await assertIntact(arena, 'body values');
  });

  test('SQL in batch keys and write-by-query filters → 404 or 400, nothing written or deleted', async ({
    arena,
  }) => {
    for (const who of CALLERS) {
      const token = arena[who];
      for (const payload of PAYLOADS) {
        const attempts: Array<[string, unknown, number[]]> = [
          ['PATCH', { keys: [payload], data: { description: 'hacked' } }, [404]],
          ['PATCH', { keys: [CARGO.fish, payload], data: { description: 'hacked' } }, [404]],
          ['PATCH', [{ id: payload, description: 'hacked' }], [404]],
          ['DELETE', [payload], [404]],
          ['DELETE', { keys: [CARGO.fish, payload] }, [404]],
          ['DELETE', { query: { filter: { [payload]: { _eq: 'x' } } } }, [400]],
          ['DELETE', { query: { filter: { description: { [payload]: 'x' } } } }, [400]],
          [
            'PATCH',
            { query: { filter: { [payload]: { _null: false } } }, data: { description: 'hacked' } },
            [400],
          ],
        ];
        for (const [method, body, statuses] of attempts) {
          const response = await arena.app.request(method, '/items/cargos', { token, body });
          assertRefused(response, `${who} ${method} ${JSON.stringify(body)}`, statuses);
        }
        // A payload as a filter value is data: it matches no row, so nothing is deleted or changed.
        const deleted = await arena.app.request('DELETE', '/items/cargos', {
          token,
          body: { query: { filter: { description: { _eq: payload } } } },
        });
        assert.is(deleted.status, 204, deleted.text);
        const updated = await arena.app.request('PATCH', '/items/cargos', {
          token,
          body: { query: { filter: { code: { _starts_with: payload } } }, data: { description: 'hacked' } },
        });
        assert.equal(updated.body, [], updated.text);
      }
    }
    await assertIntact(arena, 'batch keys and write filters');
  });

  test('SQL in the fields parameter of a write → 400 INVALID_QUERY, nothing written', async ({ arena }) => {
    for (const payload of PAYLOADS) {
      const response = await arena.app.request('POST', `/items/cargos?fields=${q(payload)}`, {
        token: arena.admin,
        body: { description: 'must not be stored' },
      });
      expectError(response, 400, 'INVALID_QUERY', payload);
      const patch = await arena.app.request(
        'PATCH',
        `/items/cargos/${CARGO.fish}?fields=${q(`id,${payload}`)}`,
        {
          token: arena.admin,
          body: { description: 'must not be stored' },
        },
      );
      expectError(patch, 400, 'INVALID_QUERY', payload);
    }
    assert.equal(
      (await arena.app.request('GET', '/items/cargos?sort=id', { token: arena.admin })).body,
      CARGO_ROWS,
    );
    await assertIntact(arena, 'write fields');
  });

  test.run();
}

function fieldOf(response: TestResponse): string | undefined {
  return (response.body as { errors: Array<{ extensions: { field?: string } }> }).errors[0]!.extensions.field;
}
