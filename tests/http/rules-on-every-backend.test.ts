import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp, type TokenPairBody } from '../support/test-app.ts';
import { assertError, runScenario, type Scenario } from './scenario.ts';

/**
 * Permission and session rules the handlers' tests prove on the in-memory store, proven again end to end
 * on every backend: the SQL store must give the same answers as the in-memory one.
 */

const COLLECTION = 'rule_parcels';
const ITEMS = `/items/${COLLECTION}`;
const REUSE_GRACE_MS = 10_000;

const FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'label', type: 'string' },
  { field: 'region', type: 'string' },
  { field: 'weight', type: 'integer' },
  { field: 'note', type: 'text' },
  { field: 'is_archived', type: 'boolean', schema: { is_nullable: false, default_value: false } },
];

const PARCELS = [
  { label: 'Alpha', region: 'north', weight: 10, note: 'fragile north', is_archived: false },
  { label: 'Beta', region: 'south', weight: 20, note: 'fragile south', is_archived: false },
  { label: 'Gamma', region: 'south', weight: 30, note: null, is_archived: false },
  { label: 'Delta', region: 'north', weight: 40, note: null, is_archived: true },
  { label: 'Epsilon', region: 'south', weight: 50, note: 'spare', is_archived: true },
] as const;

type Label = (typeof PARCELS)[number]['label'];
type Parcel = { id: number; label: Label; weight: number | null; note: string | null };

type Context = {
  app: TestApp;
  /** Caller tokens by name, for the scenario tables. */
  tokens: Record<'admin' | 'clerk' | 'packer', string>;
  ids: Record<Label, number>;
};

/** The rows as the admin sees them, by label: what a refused write must have left alone. */
async function stored(context: Context): Promise<Record<string, Parcel>> {
  const response = await context.app.request('GET', `${ITEMS}?sort=id`, {
    token: context.tokens.admin,
  });
  assert.is(response.status, 200, response.text);
  return Object.fromEntries((response.body as Parcel[]).map((parcel) => [parcel.label, parcel]));
}

const refresh = (app: TestApp, refreshToken: string) =>
  app.request('POST', '/auth/refresh', { body: { refresh_token: refreshToken } });

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `permission and session rules over HTTP on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has(COLLECTION))
      await persistence.schemaEditor.dropCollection(COLLECTION);
    const app = await startTestApp({ persistence, env: { REFRESH_REUSE_GRACE: `${REUSE_GRACE_MS}ms` } });
    context.app = app;
    const admin = (await app.login(await app.seedAdmin())).access_token;
    const asAdmin = async (method: string, path: string, body: unknown) => {
      const response = await app.request(method, path, { token: admin, body });
      assert.is(response.status, 200, `${method} ${path}: ${response.text}`);
      return response.body;
    };
    await asAdmin('POST', '/collections', { collection: COLLECTION, fields: FIELDS });
    const created = (await asAdmin('POST', ITEMS, PARCELS)) as Parcel[];
    context.ids = Object.fromEntries(created.map((parcel) => [parcel.label, parcel.id])) as Record<
      Label,
      number
    >;

    // The clerk reads every row, but weight and note only on the south region's rows.
    const clerk = await app.createRole({ name: 'Clerk' });
    const grant = (role: string, body: Record<string, unknown>) =>
      asAdmin('POST', '/permissions', { role, collection: COLLECTION, ...body });
    await grant(clerk.id, {
      action: 'read',
      permissions: { region: { _eq: 'north' } },
      fields: ['id', 'label', 'region'],
    });
    await grant(clerk.id, {
      action: 'read',
      permissions: { region: { _eq: 'south' } },
      fields: ['id', 'label', 'region', 'weight', 'note'],
    });

    // The packer reads everything, deletes archived parcels only, and may only leave a parcel with a note.
    const packer = await app.createRole({ name: 'Packer' });
    await grant(packer.id, { action: 'read', fields: ['*'] });
    await grant(packer.id, { action: 'delete', permissions: { is_archived: { _eq: true } } });
    await grant(packer.id, {
      action: 'update',
      fields: ['weight', 'note'],
      validation: { note: { _nnull: true } },
    });

    context.tokens = {
      admin,
      clerk: (await app.login(await app.createUser({ role: clerk.id }))).access_token,
      packer: (await app.login(await app.createUser({ role: packer.id }))).access_token,
    };
  });

  test.after(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection(COLLECTION);
    await app.close();
    await target.dispose();
  });

  test("a field granted by one read permission only shows on that permission's rows, null elsewhere", async ({
    app,
    tokens,
    ids,
  }) => {
    const list = await app.request('GET', `${ITEMS}?sort=id`, { token: tokens.clerk });
    assert.is(list.status, 200, list.text);
    assert.equal(list.body, [
      { id: ids.Alpha, label: 'Alpha', region: 'north', weight: null, note: null },
      { id: ids.Beta, label: 'Beta', region: 'south', weight: 20, note: 'fragile south' },
      { id: ids.Gamma, label: 'Gamma', region: 'south', weight: 30, note: null },
      { id: ids.Delta, label: 'Delta', region: 'north', weight: null, note: null },
      { id: ids.Epsilon, label: 'Epsilon', region: 'south', weight: 50, note: 'spare' },
    ]);
    const hiddenHere = await app.request('GET', `${ITEMS}/${ids.Alpha}?fields=id,weight,note`, {
      token: tokens.clerk,
    });
    assert.equal(hiddenHere.body, { id: ids.Alpha, weight: null, note: null });
    const shownHere = await app.request('GET', `${ITEMS}/${ids.Beta}?fields=id,weight,note`, {
      token: tokens.clerk,
    });
    assert.equal(shownHere.body, { id: ids.Beta, weight: 20, note: 'fragile south' });
  });

  const conditionalFieldQueries: Scenario[] = [
    ['filter on it (bracket form)', 'filter[weight][_gt]=0', 'weight'],
    ['a null test on it', 'filter[note][_null]=true', 'note'],
    [
      'filter on it inside _or (JSON form)',
      `filter=${q({ _or: [{ label: { _eq: 'x' } }, { weight: { _lt: 15 } }] })}`,
      'weight',
    ],
    ['sort on it', 'sort=weight', 'weight'],
    ['sort on it, descending, after another field', 'sort=label,-note', 'note'],
  ].map(([name, query, field]) => ({
    name: `a field shown on some rows only: ${name} → 403 FORBIDDEN naming it`,
    method: 'GET',
    path: `${ITEMS}?${query}`,
    as: 'clerk',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
    expectedField: field,
  }));
  const labels = (body: unknown) => (body as Parcel[]).map((parcel) => parcel.label);
  const queryableFieldQueries: Scenario[] = [
    {
      name: 'a field shown on every row can be filtered and sorted on',
      method: 'GET',
      path: `${ITEMS}?filter[region][_eq]=south&sort=-label`,
      as: 'clerk',
      expectedStatus: 200,
      expectedBody: (body) => assert.equal(labels(body), ['Gamma', 'Epsilon', 'Beta']),
    },
    {
      name: 'search leaves a field shown on some rows only out: its values match nothing',
      method: 'GET',
      path: `${ITEMS}?search=fragile`,
      as: 'clerk',
      expectedStatus: 200,
      expectedBody: (body) => assert.equal(body, []),
    },
    {
      name: 'search covers the fields shown on every row',
      method: 'GET',
      path: `${ITEMS}?search=amm`,
      as: 'clerk',
      expectedStatus: 200,
      expectedBody: (body) => assert.equal(labels(body), ['Gamma']),
    },
    {
      name: 'the admin, whom no permission limits, searches every text field',
      method: 'GET',
      path: `${ITEMS}?search=fragile&sort=id`,
      as: 'admin',
      expectedStatus: 200,
      expectedBody: (body) => assert.equal(labels(body), ['Alpha', 'Beta']),
    },
  ];
  for (const row of [...conditionalFieldQueries, ...queryableFieldQueries]) {
    test(row.name, ({ app, tokens }) => runScenario(app, tokens, row));
  }

  test('a delete outside the delete permission’s row filter is 403 in every form, and deletes nothing', async (context) => {
    const { app, tokens, ids } = context;
    const before = await stored(context);
    const refusals: Array<[string, string, unknown]> = [
      ['one key', `${ITEMS}/${ids.Alpha}`, undefined],
      ['an array of keys, a deletable one first', ITEMS, [ids.Delta, ids.Alpha]],
      ['{ keys }, a deletable one first', ITEMS, { keys: [ids.Epsilon, ids.Beta] }],
      [
        '{ query } matching a deletable and a protected row',
        ITEMS,
        { query: { filter: { region: { _eq: 'north' } } } },
      ],
    ];
    for (const [form, path, body] of refusals) {
      const response = await app.request('DELETE', path, { token: tokens.packer, body });
      assertError(response, 403, 'FORBIDDEN');
      assert.equal(await stored(context), before, `${form}: nothing deleted`);
    }
  });

  test('a delete inside the delete permission’s row filter succeeds', async (context) => {
    const { app, tokens, ids } = context;
    const removed = await app.request('DELETE', `${ITEMS}/${ids.Delta}`, { token: tokens.packer });
    assert.is(removed.status, 204, removed.text);
    assert.equal(Object.keys(await stored(context)), ['Alpha', 'Beta', 'Gamma', 'Epsilon']);
  });

  test('update validation is checked on the stored row merged with the patch', async (context) => {
    const { app, tokens, ids } = context;
    const patch = (id: number, body: unknown) =>
      app.request('PATCH', `${ITEMS}/${id}`, { token: tokens.packer, body });

    // Gamma has no note: a patch that leaves it out fails the rule on the untouched field.
    assertError(await patch(ids.Gamma, { weight: 31 }), 400, 'FAILED_VALIDATION', 'note');
    assert.is((await stored(context)).Gamma?.weight, 30, 'the refused patch changed nothing');
    // Beta has a note: the same patch passes, though the patch alone has none.
    const beta = await patch(ids.Beta, { weight: 21 });
    assert.is(beta.status, 200, beta.text);
    assert.is((beta.body as Parcel).weight, 21);
    // Clearing the note fails; giving Gamma one along with the weight passes.
    assertError(await patch(ids.Beta, { note: null }), 400, 'FAILED_VALIDATION', 'note');
    const gamma = await patch(ids.Gamma, { weight: 31, note: 'labelled at last' });
    assert.is(gamma.status, 200, gamma.text);
    const after = await stored(context);
    assert.equal([after.Beta?.weight, after.Beta?.note], [21, 'fragile south']);
    assert.equal([after.Gamma?.weight, after.Gamma?.note], [31, 'labelled at last']);
  });

  test('a spent refresh token reused exactly at the grace boundary still refreshes; a millisecond later it is theft', async ({
    app,
  }) => {
    const user = await app.createUser();
    const first = await app.login(user);
    const successor = await refresh(app, first.refresh_token);
    assert.is(successor.status, 200, successor.text);

    app.clock.advance(REUSE_GRACE_MS);
    const atBoundary = await refresh(app, first.refresh_token);
    assert.is(atBoundary.status, 200, `reuse ${REUSE_GRACE_MS} ms after rotation: ${atBoundary.text}`);

    app.clock.advance(1);
    assertError(await refresh(app, first.refresh_token), 401, 'INVALID_TOKEN');
    for (const pair of [successor, atBoundary]) {
      const revoked = await refresh(app, (pair.body as TokenPairBody).refresh_token);
      assertError(revoked, 401, 'INVALID_TOKEN');
    }
  });

  test('a suspended user cannot refresh, not even within the grace period; reactivation does not revive the session', async ({
    app,
    tokens,
  }) => {
    const user = await app.createUser();
    const first = await app.login(user);
    const successor = await refresh(app, first.refresh_token);
    assert.is(successor.status, 200, successor.text);
    const setStatus = async (status: string) => {
      const response = await app.request('PATCH', `/users/${user.id}`, {
        token: tokens.admin,
        body: { status },
      });
      assert.is(response.status, 200, response.text);
    };

    await setStatus('suspended');
    assertError(await refresh(app, (successor.body as TokenPairBody).refresh_token), 401, 'INVALID_TOKEN');
    assertError(await refresh(app, first.refresh_token), 401, 'INVALID_TOKEN');
    await setStatus('active');
    assertError(await refresh(app, (successor.body as TokenPairBody).refresh_token), 401, 'INVALID_TOKEN');
    const again = await app.login(user);
    assert.is((await refresh(app, again.refresh_token)).status, 200);
  });

  test.run();
}

function q(value: unknown): string {
  return encodeURIComponent(JSON.stringify(value));
}
