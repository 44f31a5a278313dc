import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app.ts';
import { expectError } from './attack-kit.ts';

/**
 * Can a writer learn that a row it may not read exists, or what it holds, from how a write fails? Every
 * permission check runs before the database may answer, and a unique clash with a hidden row is refused
 * as a field outside the caller's permission is (docs/api.md §5): the probes below compare answers byte
 * for byte, and nothing may be written.
 */

const COLLECTION = 'oracle_parcels';
const ITEMS = `/items/${COLLECTION}`;

const FIELDS = [
  { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
  { field: 'code', type: 'string', schema: { is_unique: true } },
  { field: 'label', type: 'string' },
  { field: 'is_hidden', type: 'boolean', schema: { is_nullable: false, default_value: false } },
];

const ID = {
  shown: '0190b000-0000-7000-8000-000000000001',
  other: '0190b000-0000-7000-8000-000000000002',
  hidden: '0190b000-0000-7000-8000-000000000003',
  unused: '0190b000-0000-7000-8000-00000000ffff',
} as const;

const ROWS = [
  { id: ID.shown, code: 'S-1', label: 'Shown', is_hidden: false },
  { id: ID.other, code: 'S-2', label: 'Other', is_hidden: false },
  { id: ID.hidden, code: 'H-1', label: 'Hidden', is_hidden: true },
];

/** Headers that differ between any two requests, whatever was asked: the only ones left out of comparisons. */
const PER_REQUEST_HEADERS = ['date', 'x-request-id'];

/** Everything a client can compare: the status, every other header, and the body byte for byte. */
function visible(response: TestResponse) {
  const headers = [...response.headers.entries()].filter(([name]) => !PER_REQUEST_HEADERS.includes(name));
  return { status: response.status, headers, body: response.text };
}

/**
 * Both roles read the rows that are not hidden, every field. The clerk may create `code` and `label` (not
 * `id`) and update them; the keeper may create `id` too, but update `label` only. So a field one of them
 * may not write, the other may: the answer to a hidden clash is compared with that refusal.
 */
type Context = { app: TestApp; admin: string; clerk: string; keeper: string };

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `write oracle on ${backend}: a failed write says nothing about rows the caller cannot read`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has(COLLECTION))
      await persistence.schemaEditor.dropCollection(COLLECTION);
    const app = await startTestApp({ persistence });
    context.app = app;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const asAdmin = async (method: string, path: string, body: unknown) => {
      const response = await app.request(method, path, { token: context.admin, body });
      assert.is(response.status, 200, `${method} ${path}: ${response.text}`);
    };
    await asAdmin('POST', '/collections', { collection: COLLECTION, fields: FIELDS });
    await asAdmin('POST', ITEMS, ROWS);
    const role = async (name: string, create: string[], update: string[]) => {
      const made = await app.createRole({ name });
      const grant = (body: Record<string, unknown>) =>
        asAdmin('POST', '/permissions', { role: made.id, collection: COLLECTION, ...body });
      const shown = { is_hidden: { _eq: false } };
      await grant({ action: 'read', permissions: shown, fields: ['*'] });
      await grant({ action: 'create', fields: create });
      await grant({ action: 'update', permissions: shown, fields: update });
      await grant({ action: 'delete', permissions: shown });
      return (await app.login(await app.createUser({ role: made.id }))).access_token;
    };
    context.clerk = await role('Clerk', ['code', 'label'], ['code', 'label']);
    context.keeper = await role('Keeper', ['id', 'code', 'label'], ['label']);
  });

  test.after(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection(COLLECTION);
    await app.close();
    await target.dispose();
  });

  /** Sends each probe, asserts all answers are identical and the table unchanged; returns the first. */
  async function sameAnswers(
    context: Context,
    probes: ReadonlyArray<{ token: string; method: string; path?: string; body: unknown }>,
  ): Promise<TestResponse> {
    const before = await rows(context);
    const answers: TestResponse[] = [];
    for (const { token, method, path = ITEMS, body } of probes) {
      answers.push(await context.app.request(method, path, { token, body }));
    }
    for (const [index, answer] of answers.entries()) {
      assert.equal(visible(answer), visible(answers[0]!), `probe ${index} answers as probe 0`);
    }
    assert.equal(await rows(context), before, 'nothing written');
    return answers[0]!;
  }

  async function rows({ app, admin }: Context): Promise<unknown> {
    const response = await app.request('GET', `${ITEMS}?sort=id`, { token: admin });
    assert.is(response.status, 200, response.text);
    return response.body;
  }

  test('create with the id of a row the caller cannot read answers as with an unused id: 403 naming id', async (context) => {
    const { clerk } = context;
    const answer = await sameAnswers(context, [
      { token: clerk, method: 'POST', body: { id: ID.hidden, label: 'Probe' } },
      { token: clerk, method: 'POST', body: { id: ID.unused, label: 'Probe' } },
      { token: clerk, method: 'POST', body: { id: ID.shown, label: 'Probe' } },
    ]);
    expectError(answer, 403, 'FORBIDDEN');
    assert.equal(answer.body, {
      errors: [
        { message: "You don't have permission to do this.", extensions: { code: 'FORBIDDEN', field: 'id' } },
      ],
    });
  });

  test('create many: a hidden id anywhere in the batch answers as an unused one, nothing written', async (context) => {
    const { clerk } = context;
    await sameAnswers(context, [
      { token: clerk, method: 'POST', body: [{ label: 'Fine' }, { id: ID.hidden, label: 'Probe' }] },
      { token: clerk, method: 'POST', body: [{ label: 'Fine' }, { id: ID.unused, label: 'Probe' }] },
    ]);
  });

  test('a caller who may set the id: a hidden row’s id answers as an id it may not set; a readable one is 409', async (context) => {
    const { clerk, keeper, app } = context;
    await sameAnswers(context, [
      { token: keeper, method: 'POST', body: { id: ID.hidden, label: 'Probe' } },
      { token: keeper, method: 'POST', body: [{ label: 'Fine' }, { id: ID.hidden, label: 'Probe' }] },
      { token: clerk, method: 'POST', body: { id: ID.unused, label: 'Probe' } },
    ]);
    const readable = await app.request('POST', ITEMS, {
      token: keeper,
      body: { id: ID.shown, label: 'Probe' },
    });
    expectError(readable, 409, 'RECORD_NOT_UNIQUE');
    assert.is(
      (readable.body as { errors: [{ extensions: { field: string } }] }).errors[0].extensions.field,
      'id',
    );
  });

  test('create with a unique value a hidden row holds answers as a field the caller may not write', async (context) => {
    const { clerk, keeper, app } = context;
    const forbidden = await sameAnswers(context, [
      { token: clerk, method: 'POST', body: { code: 'H-1', label: 'Probe' } },
      { token: clerk, method: 'POST', body: [{ code: 'N-1' }, { code: 'H-1' }] },
      { token: keeper, method: 'PATCH', path: `${ITEMS}/${ID.shown}`, body: { code: 'N-2' } },
    ]);
    expectError(forbidden, 403, 'FORBIDDEN');
    const readable = await app.request('POST', ITEMS, { token: clerk, body: { code: 'S-2' } });
    expectError(readable, 409, 'RECORD_NOT_UNIQUE');
  });

  test('update by key, keys, array and query to a unique value a hidden row holds: 403 as an unwritable field', async (context) => {
    const { clerk, keeper } = context;
    const data = { code: 'H-1' };
    await sameAnswers(context, [
      { token: clerk, method: 'PATCH', path: `${ITEMS}/${ID.shown}`, body: data },
      { token: clerk, method: 'PATCH', body: { keys: [ID.shown], data } },
      { token: clerk, method: 'PATCH', body: [{ id: ID.shown, ...data }] },
      { token: clerk, method: 'PATCH', body: { query: { filter: { id: { _eq: ID.shown } } }, data } },
      { token: keeper, method: 'PATCH', path: `${ITEMS}/${ID.shown}`, body: { code: 'N-3' } },
    ]);
  });

  test('update to a unique value a readable row holds, or two targets to one value: 409 naming the field', async (context) => {
    const { app, clerk } = context;
    const before = await rows(context);
    for (const body of [
      { keys: [ID.shown], data: { code: 'S-2' } },
      { keys: [ID.shown, ID.other], data: { code: 'N-4' } },
      [{ id: ID.shown, code: 'S-2' }],
    ]) {
      const clash = await app.request('PATCH', ITEMS, { token: clerk, body });
      expectError(clash, 409, 'RECORD_NOT_UNIQUE', JSON.stringify(body));
    }
    assert.equal(await rows(context), before, 'nothing written');
  });

  test('delete of a hidden row answers as a missing one: 404, nothing deleted', async (context) => {
    const { clerk } = context;
    const answer = await sameAnswers(context, [
      { token: clerk, method: 'DELETE', path: `${ITEMS}/${ID.hidden}`, body: undefined },
      { token: clerk, method: 'DELETE', path: `${ITEMS}/${ID.unused}`, body: undefined },
      { token: clerk, method: 'DELETE', body: [ID.shown, ID.hidden] },
    ]);
    expectError(answer, 404, 'NOT_FOUND');
  });

  test.run();
}

/**
 * Foreign keys, on every backend (the in-memory twin enforces them as PostgreSQL does). The clerk may
 * delete any dock but `Locked`, and reads the berths that are not hidden: a dock a hidden berth still
 * refers to must answer as the locked one does, not as one a visible berth refers to.
 */
const DOCKS = 'oracle_docks';
const BERTHS = 'oracle_berths';

type ReferencesContext = { app: TestApp; admin: string; clerk: string; persistence: Persistence };

for (const [target, test] of suitePerBackend<ReferencesContext>(
  backends(),
  (backend) =>
    `write oracle on ${backend}: a refused delete says nothing about referring rows the caller cannot read`,
)) {
  test.before(async (context) => {
    const persistence = await target.fresh();
    context.persistence = persistence;
    const editor = persistence.schemaEditor;
    const docks = await editor.createCollection(DOCKS, [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'name', type: 'text', isNullable: false },
    ]);
    const berths = await editor.createCollection(BERTHS, [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'dock', type: 'integer' },
      { field: 'is_hidden', type: 'boolean', isNullable: false, defaultValue: false },
    ]);
    await editor.createRelation({ collection: BERTHS, field: 'dock', relatedCollection: DOCKS });
    await persistence.items.write(async (writer) => {
      await writer.insert(
        docks,
        ['Seen', 'Hidden', 'Locked', 'Free'].map((name, index) => ({ id: index + 1, name })),
      );
      await writer.insert(berths, [
        { id: 1, dock: 1, is_hidden: false },
        { id: 2, dock: 2, is_hidden: true },
        { id: 3, dock: 3, is_hidden: false },
      ]);
    });
    const app = await startTestApp({ persistence: borrowed(persistence) });
    context.app = app;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const clerk = await app.createRole({ name: 'Clerk' });
    const grant = async (body: Record<string, unknown>) => {
      const response = await app.request('POST', '/permissions', {
        token: context.admin,
        body: { role: clerk.id, fields: ['*'], ...body },
      });
      assert.is(response.status, 200, response.text);
    };
    await grant({ collection: DOCKS, action: 'read' });
    await grant({ collection: DOCKS, action: 'delete', permissions: { name: { _neq: 'Locked' } } });
    await grant({ collection: BERTHS, action: 'read', permissions: { is_hidden: { _eq: false } } });
    context.clerk = (await app.login(await app.createUser({ role: clerk.id }))).access_token;
  });
  test.after(async ({ app, persistence }) => {
    await persistence.schemaEditor.dropCollection(BERTHS);
    await persistence.schemaEditor.dropCollection(DOCKS);
    await app.close();
    await target.dispose();
  });

  test('deleting a row only hidden rows refer to answers as a row outside the delete permission', async ({
    app,
    clerk,
  }) => {
    const hidden = await app.request('DELETE', `/items/${DOCKS}/2`, { token: clerk });
    const locked = await app.request('DELETE', `/items/${DOCKS}/3`, { token: clerk });
    assert.equal(visible(hidden), visible(locked));
    expectError(hidden, 403, 'FORBIDDEN');
    const batch = await app.request('DELETE', `/items/${DOCKS}`, { token: clerk, body: [1, 2] });
    assert.equal(visible(batch), visible(locked));
  });

  test('deleting a row readable rows refer to: 400 saying so; admins always hear it', async ({
    app,
    admin,
    clerk,
  }) => {
    const seen = await app.request('DELETE', `/items/${DOCKS}/1`, { token: clerk });
    expectError(seen, 400, 'FAILED_VALIDATION');
    assert.match(seen.text, /still refer/);
    const asAdmin = await app.request('DELETE', `/items/${DOCKS}/2`, { token: admin });
    expectError(asAdmin, 400, 'FAILED_VALIDATION');
    const free = await app.request('DELETE', `/items/${DOCKS}/4`, { token: clerk });
    assert.is(free.status, 204, free.text);
    const left = await app.request('GET', `/items/${DOCKS}?sort=id&fields=id`, { token: admin });
    assert.equal(left.body, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  test.run();
}
