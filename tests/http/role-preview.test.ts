import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { OpenApiDocument } from '../../src/adapters/http/openapi/openapi-types.ts';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { registeredRoutes } from '../security/fuzz/operations.ts';
import { cargosSchema } from '../support/cargos-schema.ts';
import { type SeededUser, startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { assertError, firstError } from './scenario.ts';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

type Context = {
  app: TestApp;
  admin: SeededUser;
  operators: string;
  tokens: { admin: string; member: string; operator: string };
  cargos: Record<'cold' | 'warm' | 'gone', string>;
  permission: string;
};

/**
 * POST /roles/:id/preview (docs/api.md §6, "Previewing a role"). Operators read three fields of the cargos
 * that are not deleted, and `code` of the cargos they created themselves (`$CURRENT_USER`); the admin
 * created every cargo, so a preview that took the admin for its user would show codes.
 */
const preview = suite<Context>('POST /roles/:id/preview');

preview.before(async (context) => {
  const app = await startTestApp({ env: { STORAGE_TUS_ENABLED: 'true' } });
  context.app = app;
  (app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
  context.admin = await app.seedAdmin();
  context.operators = (await app.createRole({ name: 'Operators' })).id;
  const member = await app.createUser({ role: context.operators });
  const admin = (await app.login(context.admin)).access_token;
  context.tokens = { admin, member: (await app.login(member)).access_token, operator: '' };
  const grants = [
    {
      role: context.operators,
      collection: 'cargos',
      action: 'read',
      fields: ['id', 'description', 'temperature'],
      permissions: { is_deleted: { _eq: false } },
    },
    {
      role: context.operators,
      collection: 'cargos',
      action: 'read',
      fields: ['id', 'code'],
      permissions: { user_created: { _eq: '$CURRENT_USER' } },
    },
    { role: null, collection: 'cargos', action: 'read', fields: ['id', 'temperature'] },
  ];
  for (const grant of grants) {
    const created = await app.request('POST', '/permissions', { token: admin, body: grant });
    assert.is(created.status, 200, created.text);
    context.permission = (created.body as { id: string }).id;
  }
  const rows = [
    { description: 'cold', temperature: -5, code: 'C-1' },
    { description: 'warm', temperature: 20, code: 'W-1' },
    { description: 'gone', temperature: 7, code: 'G-1', is_deleted: true },
  ];
  const created = await app.request('POST', '/items/cargos', { token: admin, body: rows });
  assert.is(created.status, 200, created.text);
  const [cold, warm, gone] = (created.body as Array<{ id: string }>).map((row) => row.id);
  context.cargos = { cold: cold!, warm: warm!, gone: gone! };
  context.tokens.operator = await previewToken(app, admin, context.operators);
});
preview.after(({ app }) => app.close());

async function previewToken(app: TestApp, admin: string, role: string): Promise<string> {
  const response = await app.request('POST', `/roles/${role}/preview`, { token: admin });
  assert.is(response.status, 200, response.text);
  return (response.body as { access_token: string }).access_token;
}

preview(
  'the answer is an access token and its expiry as login answers them, without a refresh token',
  async ({ app, tokens, operators }) => {
    for (const body of [undefined, {}]) {
      const response = await app.request('POST', `/roles/${operators}/preview`, {
        token: tokens.admin,
        body,
      });
      assert.is(response.status, 200, response.text);
      const answer = response.body as { access_token: string; expires: number };
      assert.equal(Object.keys(answer).sort(), ['access_token', 'expires']);
      const ttlMs = 15 * 60_000;
      assert.is(answer.expires, Math.floor((app.clock.now().getTime() + ttlMs) / 1000) * 1000);
    }
  },
);

preview(
  'the preview reads what the role grants whoever its user is: $CURRENT_USER matches nothing',
  async ({ app, tokens, cargos }) => {
    const list = '/items/cargos?sort=id';
    const asOperator = await app.request('GET', list, { token: tokens.operator });
    assert.is(asOperator.status, 200, asOperator.text);
    assert.equal(asOperator.body, [
      { id: cargos.cold, description: 'cold', temperature: -5 },
      { id: cargos.warm, description: 'warm', temperature: 20 },
    ]);
    // A user of the role has `code` on the cargos they created (none here); the preview has no user, so none.
    const asMember = await app.request('GET', list, { token: tokens.member });
    assert.equal(
      asMember.body,
      (asOperator.body as object[]).map((row) => ({ ...row, code: null })),
    );
    const hidden = await app.request('GET', `/items/cargos/${cargos.gone}`, { token: tokens.operator });
    assertError(hidden, 404, 'NOT_FOUND');
    const refused = await app.request('GET', '/items/cargos?fields=price', { token: tokens.operator });
    assertError(refused, 403, 'FORBIDDEN', 'price');
    assertError(await app.request('GET', '/roles', { token: tokens.operator }), 403, 'FORBIDDEN');
  },
);

preview(
  '/server/specs/oas with the preview describes the role, as to a user of it',
  async ({ app, tokens }) => {
    const documentOf = async (token: string) => {
      const response = await app.request('GET', '/server/specs/oas', { token });
      assert.is(response.status, 200, response.text);
      return response.body as OpenApiDocument;
    };
    const asOperator = await documentOf(tokens.operator);
    const item = asOperator.components?.schemas?.['cargos.Item'] as { properties: object } | undefined;
    assert.equal(Object.keys(item?.properties ?? {}), ['id', 'description', 'temperature']);
    assert.ok(asOperator.paths['/items/cargos']?.get);
    assert.not.ok(asOperator.paths['/items/cargos']?.post, 'operators may not create cargos');
    assert.ok(asOperator.paths['/users/me']?.get, "a user's own operations are the role's users'");
    assert.not.ok(asOperator.paths['/roles'], 'administration is for admins');
    assert.not.ok(asOperator.paths['/roles/{id}/preview']);
    const asAdmin = await documentOf(tokens.admin);
    assert.ok(asAdmin.paths['/roles/{id}/preview']?.post && asAdmin.paths['/roles/public/preview']?.post);
  },
);

preview(
  'a preview of the public role reads and describes what anonymous callers do',
  async ({ app, tokens }) => {
    const response = await app.request('POST', '/roles/public/preview', { token: tokens.admin });
    assert.is(response.status, 200, response.text);
    const token = (response.body as { access_token: string }).access_token;
    for (const path of ['/items/cargos?sort=temperature', '/server/specs/oas']) {
      const asPublic = await app.request('GET', path, { token });
      assert.is(asPublic.status, 200, asPublic.text);
      assert.equal(asPublic.body, (await app.request('GET', path)).body, path);
    }
    assertError(await app.request('GET', '/roles', { token }), 401, 'UNAUTHENTICATED');
  },
);

preview('/users/me has no user to answer with: 403 PREVIEW', async ({ app, tokens }) => {
  const me = await app.request('GET', '/users/me', { token: tokens.operator });
  assertError(me, 403, 'FORBIDDEN');
  assert.is(firstError(me).extensions.reason, 'PREVIEW');
});

preview(
  'who may ask: anonymous 401, a non-admin 403, an unknown or malformed id 404, a bad body 400',
  async ({ app, tokens, operators }) => {
    const path = `/roles/${operators}/preview`;
    assertError(await app.request('POST', path), 401, 'UNAUTHENTICATED');
    assertError(await app.request('POST', '/roles/public/preview'), 401, 'UNAUTHENTICATED');
    assertError(await app.request('POST', path, { token: tokens.member }), 403, 'FORBIDDEN');
    assertError(
      await app.request('POST', '/roles/public/preview', { token: tokens.member }),
      403,
      'FORBIDDEN',
    );
    const admin = { token: tokens.admin };
    assertError(await app.request('POST', `/roles/${MISSING_ID}/preview`, admin), 404, 'NOT_FOUND');
    assertError(await app.request('POST', '/roles/not-a-uuid/preview', admin), 404, 'NOT_FOUND');
    // Fixed segments are exact: `PUBLIC` is an id like any other, and no uuid.
    for (const spelling of ['PUBLIC', 'Public']) {
      assertError(await app.request('POST', `/roles/${spelling}/preview`, admin), 404, 'NOT_FOUND');
    }
    assertError(await app.request('POST', `/roles/${operators}/PREVIEW`, admin), 404, 'NOT_FOUND');
    const unknownMember = await app.request('POST', path, { ...admin, body: { role: operators } });
    assertError(unknownMember, 400, 'INVALID_PAYLOAD', 'role');
    assertError(await app.request('POST', path, { ...admin, body: [] }), 400, 'INVALID_PAYLOAD');
  },
);

preview(
  'the issuance is recorded in the activity, by the admin, on the role',
  async ({ app, tokens, admin, operators }) => {
    await previewToken(app, tokens.admin, operators);
    await app.request('POST', '/roles/public/preview', { token: tokens.admin });
    const activity = await app.request(
      'GET',
      '/activity?filter[action][_eq]=preview&fields=user,collection,item&sort=-id&limit=2',
      { token: tokens.admin },
    );
    assert.is(activity.status, 200, activity.text);
    const [last, earlier] = activity.body as Array<Record<string, unknown>>;
    assert.equal(last, { user: admin.id, collection: 'datagate_roles', item: 'public' });
    assert.equal(earlier, { user: admin.id, collection: 'datagate_roles', item: operators });
  },
);

/** What a write could change, as the admin reads it. */
async function everything(app: TestApp, admin: string): Promise<unknown[]> {
  const paths = [
    '/users',
    '/roles',
    '/permissions',
    '/collections',
    '/fields/cargos',
    '/relations',
    '/items/cargos?sort=description',
    '/files',
    '/activity?sort=id',
  ];
  return Promise.all(paths.map(async (path) => (await app.request('GET', path, { token: admin })).body));
}

preview(
  'every route but a reading one refuses a preview, even of an admin role, and writes nothing',
  async ({ app, tokens, admin, operators, cargos, permission }) => {
    const adminPreview = await previewToken(app, tokens.admin, admin.role!);
    assert.is(
      (await app.request('GET', '/users', { token: adminPreview })).status,
      200,
      'it reads as an admin',
    );
    const before = await everything(app, tokens.admin);
    const ids: Record<string, string> = { users: admin.id, roles: operators, permissions: permission };
    const concrete = (route: string) =>
      route
        .replace(/^\/(\w+)\/:id/, (_match, area: string) => `/${area}/${ids[area] ?? MISSING_ID}`)
        .replace(':collection', 'cargos')
        .replace(':key', cargos.cold)
        .replace(':field', 'description')
        .replace(/:(revision|record)/, '1')
        .replace(':upload', 'upload-1');
    const tried: string[] = [];
    for (const { method, route } of registeredRoutes(app.container)) {
      if (['GET', 'HEAD', 'SEARCH'].includes(method)) continue;
      const response = await app.request(method, concrete(route), { token: adminPreview, body: {} });
      const what = `${method} ${route}: ${response.status} ${response.text}`;
      if (route.startsWith('/auth/')) {
        // Never reads a token (docs/api.md §3): a preview is just another body-less stranger there.
        assert.is(response.status, 400, what);
      } else if (response.status === 403) {
        assert.is(firstError(response).extensions.reason, 'PREVIEW', what);
      } else {
        assert.ok([404, 405].includes(response.status), what);
      }
      tried.push(`${method} ${route}`);
    }
    assert.ok(tried.includes('PATCH /roles/:id') && tried.includes('POST /files/tus'), tried.join(', '));
    assert.equal(await everything(app, tokens.admin), before);
  },
);

preview('the token dies with its role', async ({ app, tokens }) => {
  const doomed = (await app.createRole({ name: 'Doomed' })).id;
  const token = await previewToken(app, tokens.admin, doomed);
  assert.is((await app.request('GET', '/server/specs/oas', { token })).status, 200);
  assert.is((await app.request('DELETE', `/roles/${doomed}`, { token: tokens.admin })).status, 204);
  assertError(await app.request('GET', '/server/specs/oas', { token }), 401, 'INVALID_TOKEN');
});

preview.run();

/** Apps of their own: the issuer is demoted or deleted, which the shared suite's admin must survive. */
const issuer = suite('a preview and its issuer');

issuer('the token dies when its issuer is demoted, and when they are deleted', () =>
  withTestApp(async (app) => {
    const root = await app.seedAdmin();
    const rootToken = (await app.login(root)).access_token;
    const second = await app.createUser({ role: root.role });
    const secondToken = (await app.login(second)).access_token;
    const operators = (await app.createRole({ name: 'Operators' })).id;
    const fromRoot = await previewToken(app, rootToken, operators);
    const fromSecond = await previewToken(app, secondToken, operators);

    const demoted = await app.request('PATCH', `/users/${second.id}`, {
      token: rootToken,
      body: { role: operators },
    });
    assert.is(demoted.status, 200, demoted.text);
    assertError(await app.request('GET', '/server/specs/oas', { token: fromSecond }), 401, 'INVALID_TOKEN');
    assert.is((await app.request('GET', '/server/specs/oas', { token: fromRoot })).status, 200);

    const promoted = await app.request('PATCH', `/users/${second.id}`, {
      token: rootToken,
      body: { role: root.role },
    });
    assert.is(promoted.status, 200, promoted.text);
    assert.is((await app.request('GET', '/server/specs/oas', { token: fromSecond })).status, 200);
    assert.is((await app.request('DELETE', `/users/${second.id}`, { token: rootToken })).status, 204);
    assertError(await app.request('GET', '/server/specs/oas', { token: fromSecond }), 401, 'INVALID_TOKEN');
  }),
);

issuer('with PASETO tokens and the directus profile, a preview works the same way', () =>
  withTestApp(
    async (app) => {
      const seeded = await app.seedAdmin();
      const login = await app.request('POST', '/auth/login', { body: seeded });
      const admin = (login.body as { data: { access_token: string } }).data.access_token;
      const operators = (await app.createRole({ name: 'Operators' })).id;
      const response = await app.request('POST', `/roles/${operators}/preview`, { token: admin });
      assert.is(response.status, 200, response.text);
      const { data } = response.body as { data: { access_token: string; expires: number } };
      assert.match(data.access_token, /^v4\.public\./);
      assert.is(data.expires, 15 * 60_000, 'the lifetime, as the directus profile answers login');
      const token = data.access_token;
      assert.is((await app.request('GET', '/server/specs/oas', { token })).status, 200);
      const write = await app.request('POST', '/roles', { token, body: { name: 'Sneaky' } });
      assertError(write, 403, 'FORBIDDEN');
      assert.is(firstError(write).extensions.reason, 'PREVIEW');
      app.clock.advance(15 * 60_000);
      assertError(await app.request('GET', '/server/specs/oas', { token }), 401, 'TOKEN_EXPIRED');
    },
    { env: { TOKEN_FORMAT: 'paseto', API_PROFILE: 'directus' } },
  ),
);

issuer.run();
