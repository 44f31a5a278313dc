import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { seedRows } from '../support/seed-rows.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const ARCHIVED = '0190b000-0000-7000-8000-000000000001';
const LIVE = '0190b000-0000-7000-8000-000000000002';
const MISSING = '0190b000-0000-7000-8000-00000000ffff';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SEED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const BATCH_MAX = 5;

const CARGOS_FIELDS = [
  { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
  { field: 'date_created', type: 'timestamp' },
  { field: 'date_updated', type: 'timestamp' },
  { field: 'description', type: 'text' },
  { field: 'temperature', type: 'float' },
  { field: 'is_deleted', type: 'boolean', schema: { is_nullable: false, default_value: false } },
];

const OPERATOR_READ = ['id', 'date_created', 'date_updated', 'description', 'temperature'];

type Context = { app: TestApp; admin: string; operator: string; writer: string };
type Item = Record<string, unknown> & { id: string };

const codeOf = (body: unknown) =>
  (body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code;
const fieldOf = (body: unknown) =>
  (body as { errors: Array<{ extensions: { field?: string } }> }).errors[0]!.extensions.field;

for (const [target, writes] of suitePerBackend<Context>(
  backends(),
  (backend) => `writing cargos over HTTP on ${backend}`,
)) {
  writes.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    for (const name of ['cargos', 'tags']) {
      if (persistence.schema.current().collections.has(name))
        await persistence.schemaEditor.dropCollection(name);
    }
    context.app = await startTestApp({ persistence, env: { QUERY_BATCH_MAX: String(BATCH_MAX) } });
    const app = context.app;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const admin = { token: context.admin };
    assert.is(
      (
        await app.request('POST', '/collections', {
          ...admin,
          body: { collection: 'cargos', fields: CARGOS_FIELDS },
        })
      ).status,
      200,
    );
    await seedRows(persistence, 'cargos', [
      {
        id: ARCHIVED,
        date_created: '2024-01-01T00:00:00',
        date_updated: null,
        description: 'Archived',
        temperature: 1,
        is_deleted: true,
      },
      {
        id: LIVE,
        date_created: '2024-01-02T00:00:00',
        date_updated: null,
        description: 'Live',
        temperature: 2,
        is_deleted: false,
      },
    ]);

    const operatorRole = await app.createRole({ name: 'Operator' });
    const grant = async (body: Record<string, unknown>) => {
      const response = await app.request('POST', '/permissions', {
        ...admin,
        body: { role: operatorRole.id, collection: 'cargos', ...body },
      });
      assert.is(response.status, 200, response.text);
    };
    const live = { is_deleted: { _eq: false } };
    await grant({ action: 'read', permissions: live, fields: OPERATOR_READ });
    await grant({
      action: 'create',
      permissions: live,
      fields: ['description', 'temperature'],
      presets: { is_deleted: false },
      // Null temperatures fail `_between` (SQL semantics), so the rule says what it allows.
      validation: { _or: [{ temperature: { _null: true } }, { temperature: { _between: [-30, 30] } }] },
    });
    await grant({ action: 'update', permissions: live, fields: ['description', 'temperature'] });
    context.operator = (await app.login(await app.createUser({ role: operatorRole.id }))).access_token;

    const writerRole = await app.createRole({ name: 'Write only' });
    const createOnly = await app.request('POST', '/permissions', {
      ...admin,
      body: { role: writerRole.id, collection: 'cargos', action: 'create', fields: ['*'] },
    });
    assert.is(createOnly.status, 200, createOnly.text);
    context.writer = (await app.login(await app.createUser({ role: writerRole.id }))).access_token;
  });
  writes.after(async ({ app }) => {
    for (const name of ['cargos', 'tags']) {
      if (app.persistence.schema.current().collections.has(name))
        await app.persistence.schemaEditor.dropCollection(name);
    }
    await app.close();
    await target.dispose();
  });

  const count = async (app: TestApp, admin: string) => {
    const response = await app.request('GET', '/items/cargos?limit=0&meta=total_count', { token: admin });
    return Number(response.headers.get('x-total-count'));
  };

  writes(
    'an operator creates one cargo: a UUID v7 key, date_created set, only readable fields returned',
    async ({ app, operator }) => {
      const response = await app.request('POST', '/items/cargos', {
        token: operator,
        body: { description: 'Fish', temperature: -18 },
      });
      assert.is(response.status, 200, response.text);
      const item = response.body as Item;
      assert.match(item.id, UUID_V7);
      assert.match(String(item.date_created), SEED_TIMESTAMP);
      assert.equal(Object.keys(item), OPERATOR_READ);
      assert.is(item.description, 'Fish');
    },
  );

  writes(
    'creating many returns them in order; the fields parameter shapes them',
    async ({ app, operator }) => {
      const body = [{ description: 'A' }, { description: 'B', temperature: 3 }, { description: 'C' }];
      const response = await app.request('POST', '/items/cargos?fields=description', {
        token: operator,
        body,
      });
      assert.is(response.status, 200, response.text);
      assert.equal(response.body, [{ description: 'A' }, { description: 'B' }, { description: 'C' }]);
    },
  );

  writes('the server sets date_created; a client cannot', async ({ app, operator }) => {
    const response = await app.request('POST', '/items/cargos', {
      token: operator,
      body: { description: 'x', date_created: '1999-01-01T00:00:00' },
    });
    assert.is(response.status, 200, response.text);
    assert.is.not((response.body as Item).date_created, '1999-01-01T00:00:00');
  });

  writes(
    'create refusals: field not granted 403, unknown field 400, wrong type 400, failed validation 400',
    async ({ app, operator, admin }) => {
      const before = await count(app, admin);
      const cases: Array<[unknown, number, string, string | undefined]> = [
        [{ description: 'x', is_deleted: true }, 403, 'FORBIDDEN', undefined],
        [{ description: 'x', colour: 'red' }, 400, 'INVALID_PAYLOAD', 'colour'],
        [{ description: 'x', temperature: 'hot' }, 400, 'FAILED_VALIDATION', 'temperature'],
        [{ description: 'x', temperature: 100 }, 400, 'FAILED_VALIDATION', 'temperature'],
        ['just text', 400, 'INVALID_PAYLOAD', undefined],
      ];
      for (const [body, status, code, field] of cases) {
        const response = await app.request('POST', '/items/cargos', { token: operator, body });
        assert.is(response.status, status, JSON.stringify(body));
        assert.is(codeOf(response.body), code, JSON.stringify(body));
        if (field) assert.is(fieldOf(response.body), field, JSON.stringify(body));
      }
      assert.is(await count(app, admin), before, 'nothing was written');
    },
  );

  writes(
    'a batch whose last item fails writes nothing; more than query.batchMax items is refused',
    async ({ app, operator, admin }) => {
      const before = await count(app, admin);
      const bad = await app.request('POST', '/items/cargos', {
        token: operator,
        body: [{ description: 'ok 1' }, { description: 'ok 2' }, { description: 'bad', temperature: 99 }],
      });
      assert.is(bad.status, 400);
      const tooMany = await app.request('POST', '/items/cargos', {
        token: operator,
        body: Array.from({ length: BATCH_MAX + 1 }, (_, i) => ({ description: `n${i}` })),
      });
      assert.is(tooMany.status, 400);
      assert.is(codeOf(tooMany.body), 'INVALID_PAYLOAD');
      assert.is(await count(app, admin), before);
    },
  );

  writes('an operator updates a live cargo; date_updated is set', async ({ app, operator }) => {
    const response = await app.request('PATCH', `/items/cargos/${LIVE}`, {
      token: operator,
      body: { temperature: 4 },
    });
    assert.is(response.status, 200, response.text);
    const item = response.body as Item;
    assert.is(item.temperature, 4);
    assert.is(item.description, 'Live');
    assert.match(String(item.date_updated), SEED_TIMESTAMP);
  });

  writes(
    'updating an archived, missing or malformed key is 404, as reading it is',
    async ({ app, operator }) => {
      for (const key of [ARCHIVED, MISSING, 'nope']) {
        const response = await app.request('PATCH', `/items/cargos/${key}`, {
          token: operator,
          body: { temperature: 1 },
        });
        assert.is(response.status, 404, key);
        assert.is(codeOf(response.body), 'NOT_FOUND');
      }
    },
  );

  writes(
    'updating a field the permission does not grant is 403; changing the key is 400',
    async ({ app, operator }) => {
      const hidden = await app.request('PATCH', `/items/cargos/${LIVE}`, {
        token: operator,
        body: { is_deleted: true },
      });
      assert.is(hidden.status, 403);
      assert.is(fieldOf(hidden.body), 'is_deleted');
      const rekey = await app.request('PATCH', `/items/cargos/${LIVE}`, {
        token: operator,
        body: { id: MISSING },
      });
      assert.is(rekey.status, 400);
    },
  );

  writes(
    'update many: by keys, as an array of items, and by query — one transaction each',
    async ({ app, operator }) => {
      const created = (
        await app.request('POST', '/items/cargos', {
          token: operator,
          body: [{ description: 'k1' }, { description: 'k2' }],
        })
      ).body as Item[];
      const keys = created.map((item) => item.id);
      const byKeys = await app.request('PATCH', '/items/cargos', {
        token: operator,
        body: { keys, data: { temperature: -5 } },
      });
      assert.is(byKeys.status, 200, byKeys.text);
      assert.equal(
        (byKeys.body as Item[]).map((item) => item.temperature),
        [-5, -5],
      );
      const asItems = await app.request('PATCH', '/items/cargos', {
        token: operator,
        body: [
          { id: keys[0], description: 'k1!' },
          { id: keys[1], description: 'k2!' },
        ],
      });
      assert.equal(
        (asItems.body as Item[]).map((item) => item.description),
        ['k1!', 'k2!'],
      );
      const byQuery = await app.request('PATCH', '/items/cargos', {
        token: operator,
        body: { query: { filter: { description: { _in: ['k1!', 'k2!'] } } }, data: { temperature: 7 } },
      });
      assert.is(byQuery.status, 200, byQuery.text);
      assert.equal((byQuery.body as Item[]).map((item) => item.temperature).sort(), [7, 7]);
    },
  );

  writes(
    'a batch update with one archived key fails as a whole and changes nothing',
    async ({ app, operator, admin }) => {
      const response = await app.request('PATCH', '/items/cargos', {
        token: operator,
        body: { keys: [LIVE, ARCHIVED], data: { temperature: 9 } },
      });
      assert.is(response.status, 404);
      const live = await app.request('GET', `/items/cargos/${LIVE}`, { token: admin });
      assert.is.not((live.body as Item).temperature, 9);
    },
  );

  writes('an update by query only reaches rows the caller may read', async ({ app, operator, admin }) => {
    const response = await app.request('PATCH', '/items/cargos', {
      token: operator,
      body: { query: { filter: { description: { _eq: 'Archived' } } }, data: { temperature: 11 } },
    });
    assert.is(response.status, 200, response.text);
    assert.equal(response.body, []);
    const archived = await app.request('GET', `/items/cargos/${ARCHIVED}`, { token: admin });
    assert.is((archived.body as Item).temperature, 1);
  });

  writes(
    'an operator may not delete; an admin deletes one, many and by query',
    async ({ app, operator, admin }) => {
      const refused = await app.request('DELETE', `/items/cargos/${LIVE}`, { token: operator });
      assert.is(refused.status, 403);
      const made = (
        await app.request('POST', '/items/cargos', {
          token: admin,
          body: [
            { description: 'd1' },
            { description: 'd2' },
            { description: 'd3' },
            { description: 'gone by query' },
          ],
        })
      ).body as Item[];
      assert.is((await app.request('DELETE', `/items/cargos/${made[0]!.id}`, { token: admin })).status, 204);
      assert.is(
        (await app.request('DELETE', '/items/cargos', { token: admin, body: [made[1]!.id] })).status,
        204,
      );
      assert.is(
        (await app.request('DELETE', '/items/cargos', { token: admin, body: { keys: [made[2]!.id] } }))
          .status,
        204,
      );
      const byQuery = await app.request('DELETE', '/items/cargos', {
        token: admin,
        body: { query: { filter: { description: { _eq: 'gone by query' } } } },
      });
      assert.is(byQuery.status, 204);
      for (const item of made)
        assert.is((await app.request('GET', `/items/cargos/${item.id}`, { token: admin })).status, 404);
      assert.is((await app.request('DELETE', `/items/cargos/${MISSING}`, { token: admin })).status, 404);
    },
  );

  writes(
    'anonymous writes are asked to authenticate; a create-only role gets 204',
    async ({ app, writer }) => {
      const anonymous = await app.request('POST', '/items/cargos', { body: { description: 'x' } });
      assert.is(anonymous.status, 401);
      const blind = await app.request('POST', '/items/cargos', {
        token: writer,
        body: { description: 'unseen' },
      });
      assert.is(blind.status, 204, blind.text);
    },
  );

  writes(
    'a unique violation is 409 naming the field, and the batch is rolled back',
    async ({ app, admin }) => {
      const made = await app.request('POST', '/collections', {
        token: admin,
        body: {
          collection: 'tags',
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true } },
            { field: 'name', type: 'string', schema: { is_unique: true } },
          ],
        },
      });
      assert.is(made.status, 200, made.text);
      const clash = await app.request('POST', '/items/tags', {
        token: admin,
        body: [{ name: 'a' }, { name: 'b' }, { name: 'a' }],
      });
      assert.is(clash.status, 409, clash.text);
      assert.is(codeOf(clash.body), 'RECORD_NOT_UNIQUE');
      assert.is(fieldOf(clash.body), 'name');
      assert.equal((await app.request('GET', '/items/tags', { token: admin })).body, []);
      const one = await app.request('POST', '/items/tags', { token: admin, body: { name: 'a' } });
      assert.is(one.status, 200, one.text);
      assert.is(typeof (one.body as { id: unknown }).id, 'number');
    },
  );

  writes.run();
}
