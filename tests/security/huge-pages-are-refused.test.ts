import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app.ts';
import { expectError } from './attack-kit.ts';

/**
 * Issue 12, finding 2: 1,000 rows of ~100 KB made a 102 MB body, and ten such reads at once took the
 * server from 158 MB to 2.36 GB. Every answer made of items — a page (GET or SEARCH), one item, a write's
 * read-back — now has a byte budget (`query.responseMaxBytes`, 64 KB here so the rows stay small): over
 * it the answer is 400 RESPONSE_TOO_LARGE naming the budget and the size, measured in the database so the
 * text never reaches the server, and a write is rolled back.
 */

const BUDGET = 64 * 1024;
const COLLECTION = 'bulky';
const ITEMS = `/items/${COLLECTION}`;
/** Ten rows of 10,000 characters: a page of all of them is about 100 KB, each row fits on its own. */
const ROWS = 10;
const FILLER = 'x'.repeat(10_000);
/** One row larger than the whole budget; the reader may see it, and one it may not see. */
const HUGE = 'y'.repeat(BUDGET + 1);

type Context = { app: TestApp; admin: string; reader: string; hugeId: number; hiddenHugeId: number };

type Row = { id: number; label: string };

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `answers over the response byte budget are refused on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has(COLLECTION))
      await persistence.schemaEditor.dropCollection(COLLECTION);
    const app = await startTestApp({ persistence, env: { QUERY_RESPONSE_MAX_BYTES: String(BUDGET) } });
    const admin = (await app.login(await app.seedAdmin())).access_token;
    const asAdmin = async (method: string, path: string, body: unknown) => {
      const response = await app.request(method, path, { token: admin, body });
      assert.is(response.status, 200, `${method} ${path}: ${response.text}`);
      return response.body;
    };
    await asAdmin('POST', '/collections', {
      collection: COLLECTION,
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'label', type: 'string' },
        { field: 'body', type: 'text' },
        { field: 'hidden', type: 'boolean', schema: { is_nullable: false, default_value: false } },
      ],
    });
    const rows = Array.from({ length: ROWS }, (_, index) => ({ label: `row ${index}`, body: FILLER }));
    await asAdmin('POST', `${ITEMS}?fields=id`, rows);
    const [huge, hiddenHuge] = (await asAdmin('POST', `${ITEMS}?fields=id`, [
      { label: 'huge', body: HUGE },
      { label: 'hidden huge', body: HUGE, hidden: true },
    ])) as Row[];

    const role = await app.createRole({ name: 'Reader' });
    for (const action of ['read', 'create', 'update']) {
      await asAdmin('POST', '/permissions', {
        role: role.id,
        collection: COLLECTION,
        action,
        permissions: action === 'create' ? {} : { hidden: { _eq: false } },
        fields: ['id', 'label', 'body'],
      });
    }
    const reader = (await app.login(await app.createUser({ role: role.id }))).access_token;
    Object.assign(context, { app, admin, reader, hugeId: huge!.id, hiddenHugeId: hiddenHuge!.id });
  });

  test.after(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection(COLLECTION);
    await app.close();
    await target.dispose();
  });

  /** The refusal names the budget and a size over it, and tells what to do. */
  function refusedAsTooLarge(response: TestResponse, label: string) {
    expectError(response, 400, 'RESPONSE_TOO_LARGE', label);
    const [error] = (response.body as { errors: [{ message: string; extensions: Record<string, unknown> }] })
      .errors;
    assert.is(error.extensions.maxBytes, BUDGET, `${label}: the budget`);
    assert.ok((error.extensions.bytes as number) > BUDGET, `${label}: the size, over the budget`);
    assert.match(error.message, /fewer items or fields/, label);
    assert.ok(response.text.length < 1024, `${label}: the refusal is small`);
  }

  const labels = async (app: TestApp, admin: string) => {
    const response = await app.request('GET', `${ITEMS}?fields=id,label&sort=id&limit=1000`, {
      token: admin,
    });
    assert.is(response.status, 200, response.text);
    return (response.body as Row[]).map((row) => row.label);
  };

  test('a page over the budget is refused, by GET and by SEARCH; fewer rows or fields are served', async ({
    app,
    reader,
  }) => {
    const page = `${ITEMS}?limit=${ROWS}&sort=id`;
    refusedAsTooLarge(await app.request('GET', page, { token: reader }), 'GET a page of ~100 KB');
    const search = await app.request('SEARCH', ITEMS, {
      token: reader,
      body: { query: { limit: ROWS, sort: ['id'] } },
    });
    refusedAsTooLarge(search, 'SEARCH a page of ~100 KB');

    const fewerRows = await app.request('GET', `${ITEMS}?limit=5&sort=id`, { token: reader });
    assert.is(fewerRows.status, 200, fewerRows.text);
    assert.is((fewerRows.body as Row[]).length, 5);
    assert.ok(Buffer.byteLength(fewerRows.text) <= BUDGET);
    const fewerFields = await app.request('GET', `${ITEMS}?fields=id,label&sort=id`, { token: reader });
    assert.is(fewerFields.status, 200, fewerFields.text);
    assert.is((fewerFields.body as Row[]).length, ROWS + 1);
  });

  test('one item over the budget is refused, with fewer fields it is served; a hidden one stays a 404', async ({
    app,
    reader,
    hugeId,
    hiddenHugeId,
  }) => {
    refusedAsTooLarge(await app.request('GET', `${ITEMS}/${hugeId}`, { token: reader }), 'GET a huge item');
    const narrow = await app.request('GET', `${ITEMS}/${hugeId}?fields=id,label`, { token: reader });
    assert.is(narrow.status, 200, narrow.text);
    assert.equal(narrow.body, { id: hugeId, label: 'huge' });
    // The size of a row the caller may not read is no business of theirs: the same 404 as any missing id.
    const hidden = await app.request('GET', `${ITEMS}/${hiddenHugeId}`, { token: reader });
    expectError(hidden, 404, 'NOT_FOUND', 'GET a hidden huge item');
  });

  test('a write whose answer would be over the budget is refused and writes nothing; fields=id lets it through', async ({
    app,
    admin,
    reader,
  }) => {
    const before = await labels(app, admin);
    const everyRow = {
      query: { filter: { label: { _starts_with: 'row' } } },
      data: { label: 'row renamed' },
    };
    refusedAsTooLarge(
      await app.request('PATCH', ITEMS, { token: reader, body: everyRow }),
      'PATCH by query over ~100 KB of rows',
    );
    refusedAsTooLarge(
      await app.request('POST', ITEMS, { token: reader, body: { label: 'another huge', body: HUGE } }),
      'POST an item larger than the budget',
    );
    assert.equal(await labels(app, admin), before, 'nothing was written');

    const updated = await app.request('PATCH', `${ITEMS}?fields=id`, { token: reader, body: everyRow });
    assert.is(updated.status, 200, updated.text);
    assert.is((updated.body as Row[]).length, ROWS);
    const created = await app.request('POST', `${ITEMS}?fields=id`, {
      token: reader,
      body: { label: 'another huge', body: HUGE },
    });
    assert.is(created.status, 200, created.text);
    assert.equal(await labels(app, admin), [
      ...Array.from({ length: ROWS }, () => 'row renamed'),
      'huge',
      'hidden huge',
      'another huge',
    ]);
  });

  test.run();
}
