import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { seedRows } from '../support/seed-rows.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const ID = {
  fish: '0190a000-0000-7000-8000-000000000001',
  bananas: '0190a000-0000-7000-8000-000000000002',
  archived: '0190a000-0000-7000-8000-000000000003',
  unmeasured: '0190a000-0000-7000-8000-000000000004',
};

const CARGOS_FIELDS = [
  { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
  { field: 'date_created', type: 'timestamp' },
  { field: 'date_updated', type: 'timestamp' },
  { field: 'description', type: 'text' },
  { field: 'temperature', type: 'float' },
  { field: 'is_deleted', type: 'boolean', schema: { is_nullable: false, default_value: false } },
];

const ROWS = [
  {
    id: ID.fish,
    date_created: '2024-01-01T10:00:00',
    date_updated: null,
    description: 'Frozen fish',
    temperature: -18,
    is_deleted: false,
  },
  {
    id: ID.bananas,
    date_created: '2024-01-02T11:30:00',
    date_updated: null,
    description: 'Bananas 100%_ripe',
    temperature: 13.5,
    is_deleted: false,
  },
  {
    id: ID.archived,
    date_created: '2024-01-03T09:15:00',
    date_updated: '2024-02-01T08:00:00',
    description: 'Archived',
    temperature: 5,
    is_deleted: true,
  },
  {
    id: ID.unmeasured,
    date_created: '2024-01-04T12:00:00',
    date_updated: null,
    description: 'No temperature yet',
    temperature: null,
    is_deleted: false,
  },
];

const OPERATOR_FIELDS = ['id', 'date_created', 'description', 'temperature'];

type Context = { app: TestApp; admin: string; operator: string };

const codeOf = (body: unknown) =>
  (body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code;

for (const [target, items] of suitePerBackend<Context>(
  backends(),
  (backend) => `reading cargos over HTTP on ${backend}`,
)) {
  items.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has('cargos'))
      await persistence.schemaEditor.dropCollection('cargos');
    context.app = await startTestApp({ persistence });
    const admin = await context.app.login(await context.app.seedAdmin());
    context.admin = admin.access_token;
    const created = await context.app.request('POST', '/collections', {
      token: context.admin,
      body: { collection: 'cargos', fields: CARGOS_FIELDS },
    });
    assert.is(created.status, 200, created.text);
    await seedRows(persistence, 'cargos', ROWS);

    const role = await context.app.createRole({ name: 'Operator' });
    const permission = await context.app.request('POST', '/permissions', {
      token: context.admin,
      body: {
        role: role.id,
        collection: 'cargos',
        action: 'read',
        permissions: { is_deleted: { _eq: false } },
        fields: OPERATOR_FIELDS,
      },
    });
    assert.is(permission.status, 200, permission.text);
    const operator = await context.app.createUser({ role: role.id });
    context.operator = (await context.app.login(operator)).access_token;
  });
  items.after(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection('cargos');
    await app.close();
    await target.dispose();
  });

  const list = (app: TestApp, token: string | undefined, query = '') =>
    app.request('GET', `/items/cargos${query}`, { token });
  const ids = (body: unknown) => (body as Array<{ id: string }>).map((item) => item.id);

  items(
    'an operator sees only non-deleted cargos, and only the permitted fields',
    async ({ app, operator }) => {
      const response = await list(app, operator);
      assert.is(response.status, 200, response.text);
      const body = response.body as Array<Record<string, unknown>>;
      assert.equal(ids(body).sort(), [ID.fish, ID.bananas, ID.unmeasured].sort());
      for (const item of body) assert.equal(Object.keys(item), OPERATOR_FIELDS);
    },
  );

  items('the token works by header and by query parameter alike', async ({ app, operator }) => {
    const byQuery = await app.request('GET', `/items/cargos?access_token=${operator}&sort=id`);
    const byHeader = await list(app, operator, '?sort=id');
    assert.is(byQuery.status, 200);
    assert.equal(byQuery.body, byHeader.body);
  });

  items('an admin sees every row and field, timestamps in the seed format', async ({ app, admin }) => {
    const response = await list(app, admin, '?sort=date_created');
    assert.is(response.status, 200);
    const body = response.body as Array<Record<string, unknown>>;
    assert.is(body.length, 4);
    assert.equal(body[0], ROWS[0]);
    assert.is(body[2]!.date_updated, '2024-02-01T08:00:00');
  });

  items('anonymous callers without public permission are asked to authenticate', async ({ app }) => {
    const response = await list(app, undefined);
    assert.is(response.status, 401);
    assert.is(codeOf(response.body), 'UNAUTHENTICATED');
  });

  items(
    'a single item: visible → 200, deleted or missing or malformed → the same 404',
    async ({ app, operator }) => {
      const fish = await app.request('GET', `/items/cargos/${ID.fish}`, { token: operator });
      assert.is(fish.status, 200);
      assert.equal(Object.keys(fish.body as object), OPERATOR_FIELDS);
      for (const id of [ID.archived, '0190a000-0000-7000-8000-00000000ffff', 'not-a-uuid']) {
        const response = await app.request('GET', `/items/cargos/${id}`, { token: operator });
        assert.is(response.status, 404, id);
        assert.is(codeOf(response.body), 'NOT_FOUND');
      }
    },
  );

  items('asking for, filtering or sorting on a hidden field is forbidden', async ({ app, operator }) => {
    for (const query of [
      '?fields=id,is_deleted',
      '?filter[is_deleted][_eq]=true',
      '?sort=date_updated',
      '?fields=is_deleted',
    ]) {
      const response = await list(app, operator, query);
      assert.is(response.status, 403, query);
      assert.is(codeOf(response.body), 'FORBIDDEN');
    }
  });

  items(
    'filters, sort, search, limit and counts apply on top of the permission',
    async ({ app, operator }) => {
      const warm = await list(app, operator, `?filter=${encodeURIComponent('{"temperature":{"_gt":0}}')}`);
      assert.equal(ids(warm.body), [ID.bananas]);
      const bracket = await list(app, operator, '?filter[temperature][_lt]=10');
      assert.equal(ids(bracket.body), [ID.fish]);
      const sorted = await list(app, operator, '?sort=-temperature&fields=id');
      assert.equal(ids(sorted.body), [ID.unmeasured, ID.bananas, ID.fish]);
      const search = await list(app, operator, `?search=${encodeURIComponent('100%_')}`);
      assert.equal(ids(search.body), [ID.bananas]);
      const page = await list(app, operator, '?limit=1&sort=date_created&meta=*');
      assert.equal(ids(page.body), [ID.fish]);
      assert.is(page.headers.get('x-total-count'), '3');
      assert.is(page.headers.get('x-filter-count'), '3');
      const none = await list(app, operator, '?limit=0');
      assert.equal(none.body, []);
    },
  );

  items('an _or in the caller’s filter cannot widen the permission', async ({ app, operator }) => {
    const widening = {
      _or: [{ temperature: { _gt: -1000 } }, { id: { _nnull: true } }, { temperature: { _null: true } }],
    };
    const response = await list(
      app,
      operator,
      `?filter=${encodeURIComponent(JSON.stringify(widening))}&meta=*`,
    );
    assert.equal(ids(response.body).sort(), [ID.fish, ID.bananas, ID.unmeasured].sort());
    assert.is(response.headers.get('x-total-count'), '3');
  });

  items('bad query values are 400 INVALID_QUERY, never 500', async ({ app, operator }) => {
    for (const query of [
      '?limit=1001',
      '?limit=-1',
      '?page=0',
      '?offset=-1',
      '?filter[temperature][_gt]=warm',
      '?filter[nope][_eq]=1',
      '?filter[temperature][_like]=1',
      '?sort=nope',
      `?filter=${encodeURIComponent('{"temperature":')}`,
      // A single value given as a list or an object, repeated or in bracket form, is refused, not ignored.
      '?limit[]=1',
      '?limit=1&limit=2',
      '?search[a]=fish',
      '?offset[]=1',
      '?after[]=x',
      // qs would drop every pair past the 1,000th, this filter with it.
      `?${Array.from({ length: 1000 }, (_, index) => `x${index}=1&`).join('')}filter[temperature][_gt]=100`,
    ]) {
      const response = await list(app, operator, query);
      assert.is(response.status, 400, query);
      assert.is(codeOf(response.body), 'INVALID_QUERY', query);
    }
  });

  items('a refused query or body says what was wrong in its own words', async ({ app, operator }) => {
    const refusals: Array<[method: string, path: string, body: unknown, code: string, message: string]> = [
      [
        'GET',
        `?filter=${encodeURIComponent('[1]')}`,
        undefined,
        'INVALID_QUERY',
        'A filter must be a JSON object, not an array.',
      ],
      ['GET', '?filter=5', undefined, 'INVALID_QUERY', 'A filter must be a JSON object, not 5.'],
      ['SEARCH', '', { query: [1] }, 'INVALID_PAYLOAD', '"query" must be a JSON object.'],
      ['SEARCH', '', [{ query: {} }], 'INVALID_PAYLOAD', 'Request body must be a JSON object.'],
      [
        'SEARCH',
        '',
        { query: { filter: [] } },
        'INVALID_QUERY',
        '"filter" must be a JSON object, given once.',
      ],
    ];
    for (const [method, query, body, code, message] of refusals) {
      const response = await app.request(method, `/items/cargos${query}`, { token: operator, body });
      assert.is(response.status, 400, `${method} ${query} ${JSON.stringify(body)}`);
      const error = (response.body as { errors: Array<{ message: string; extensions: { code: string } }> })
        .errors[0]!;
      assert.is(error.extensions.code, code);
      assert.is(error.message, message);
    }
  });

  items(
    'the bracket form has no null: "null" is text on a text field and refused elsewhere, pointing to _null',
    async ({ app, admin }) => {
      const onText = await list(app, admin, '?filter[description][_eq]=null');
      assert.is(onText.status, 200, onText.text);
      assert.equal(onText.body, []);
      const onFloat = await list(app, admin, '?filter[temperature][_eq]=null');
      assert.is(onFloat.status, 400, onFloat.text);
      const error = (onFloat.body as { errors: Array<{ message: string; extensions: { field: string } }> })
        .errors[0]!;
      assert.is(error.extensions.field, 'temperature');
      assert.match(error.message, 'filter[temperature][_null]=true');
      const nulls = await list(app, admin, '?filter[temperature][_null]=true&fields=id');
      assert.equal(ids(nulls.body), [ID.unmeasured]);
    },
  );

  items(
    'unknown collections: 403 for users, 401 for anonymous, 404 for admins; system tables never',
    async ({ app, operator, admin }) => {
      assert.is((await app.request('GET', '/items/ghosts', { token: operator })).status, 403);
      assert.is((await app.request('GET', '/items/ghosts')).status, 401);
      const forAdmin = await app.request('GET', '/items/ghosts', { token: admin });
      assert.is(forAdmin.status, 404);
      assert.is(codeOf(forAdmin.body), 'COLLECTION_NOT_FOUND');
      const system = await app.request('GET', '/items/datagate_users', { token: admin });
      assert.is(codeOf(system.body), 'COLLECTION_NOT_FOUND');
    },
  );

  items(
    'without a read permission an item is refused whether or not it exists: nothing tells which keys do',
    async ({ app }) => {
      const role = await app.createRole({ name: 'No reads' });
      const token = (await app.login(await app.createUser({ role: role.id }))).access_token;
      for (const [caller, status] of [
        [token, 403],
        [undefined, 401],
      ] as const) {
        const answers = await Promise.all(
          [ID.fish, ID.archived, '0190a000-0000-7000-8000-0000000000ff', 'not-a-key'].map((key) =>
            app.request('GET', `/items/cargos/${key}`, { token: caller }),
          ),
        );
        for (const answer of answers) assert.is(answer.status, status, answer.text);
        for (const answer of answers) assert.is(answer.text, answers[0]!.text);
      }
    },
  );

  items(
    'SEARCH takes its query from the body only: list parameters in its URL or an export are 400, never dropped',
    async ({ app, operator }) => {
      const search = (url: string, query: Record<string, unknown>) =>
        app.request('SEARCH', `/items/cargos${url}`, { token: operator, body: { query } });
      for (const [url, query, field] of [
        // Dropped, this filter would answer every visible cargo.
        ['?filter[temperature][_gt]=100', { fields: ['id'] }, 'filter'],
        [`?filter=${encodeURIComponent('{"temperature":{"_gt":100}}')}`, {}, 'filter'],
        ['?search=fish', { limit: 10 }, 'search'],
        ['?limit=1', {}, 'limit'],
        ['?fields=id&sort=-temperature', {}, 'fields'],
        ['?aggregate[count]=*', {}, 'aggregate'],
        ['?export=csv', {}, 'export'],
        ['', { export: 'csv' }, 'export'],
        ['', { export: 'json', fields: ['id'] }, 'export'],
      ] as const) {
        const response = await search(url, query);
        assert.is(response.status, 400, `${url} ${JSON.stringify(query)}: ${response.text}`);
        const error = (response.body as { errors: Array<{ extensions: Record<string, unknown> }> })
          .errors[0]!;
        assert.equal(error.extensions, { reason: 'UNSUPPORTED_PARAMETER', field, code: 'INVALID_QUERY' });
      }
      // The token and parameters no list reads (a cache buster) are no part of the query.
      const answered = await app.request('SEARCH', `/items/cargos?access_token=${operator}&_=1`, {
        body: { query: { filter: { temperature: { _gt: 0 } }, fields: ['id'] } },
      });
      assert.is(answered.status, 200, answered.text);
      assert.equal(ids(answered.body), [ID.bananas]);
    },
  );

  items('injection attempts get 4xx and leave the table intact', async ({ app, operator, admin }) => {
    const attempts = [
      `/items/${encodeURIComponent('cargos"; drop table cargos; --')}`,
      `/items/cargos?sort=${encodeURIComponent('id") or 1=1 --')}`,
      `/items/cargos?fields=${encodeURIComponent('id,(select 1)')}`,
      `/items/cargos?filter=${encodeURIComponent(JSON.stringify({ "description') or 1=1 --": { _eq: 'x' } }))}`,
      `/items/cargos/${encodeURIComponent("' or '1'='1")}`,
    ];
    for (const path of attempts) {
      const response = await app.request('GET', path, { token: operator });
      assert.ok(response.status >= 400 && response.status < 500, `${path} → ${response.status}`);
    }
    const value = await list(
      app,
      operator,
      `?filter=${encodeURIComponent(JSON.stringify({ description: { _eq: "'; drop table cargos; --" } }))}`,
    );
    assert.equal(value.body, []);
    assert.is(((await list(app, admin)).body as unknown[]).length, 4);
  });

  items.run();
}
