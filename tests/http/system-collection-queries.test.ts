import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { digestSecret } from '../../src/application/auth/opaque-secret.ts';
import { MASKED_TOKEN } from '../../src/application/users/user-view.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app.ts';
import { assertError, runScenario, type Scenario } from './scenario.ts';

type Context = {
  app: TestApp;
  tokens: Record<string, string>;
  ids: Record<'admin' | 'member' | 'holder' | 'suspended' | 'editors' | 'articles' | 'cargos', string>;
};

const STATIC_TOKEN = 'static-token-of-the-holder-0123456789abcdef';
const DIGEST = digestSecret(STATIC_TOKEN);

const queries = suite<Context>('system collections speak the query language');

queries.before(async (context) => {
  const app = await startTestApp({ env: { QUERY_LIMIT_MAX: '50' } });
  context.app = app;
  const admin = await app.seedAdmin();
  const editors = await app.createRole({ name: 'editors', description: 'Writes articles' });
  const member = await app.createUser({ email: 'mia@example.com', first_name: 'Mia', role: editors.id });
  const holder = await app.createUser({ email: 'tom@example.com', first_name: 'Tom', token: STATIC_TOKEN });
  const suspended = await app.createUser({
    email: 'sid@example.com',
    last_name: 'Vicious',
    status: 'suspended',
  });
  const adminToken = (await app.login(admin)).access_token;
  const permission = async (body: Record<string, unknown>) => {
    const response = await app.request('POST', '/permissions', { body, token: adminToken });
    assert.is(response.status, 200, response.text);
    return (response.body as { id: string }).id;
  };
  await app.request('POST', '/collections', {
    token: adminToken,
    body: {
      collection: 'articles',
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
    },
  });
  context.ids = {
    admin: admin.id,
    member: member.id,
    holder: holder.id,
    suspended: suspended.id,
    editors: editors.id,
    articles: await permission({
      role: editors.id,
      collection: 'articles',
      action: 'read',
      permissions: { id: { _gt: 0 } },
      fields: ['*'],
    }),
    cargos: await permission({ role: null, collection: 'articles', action: 'create', fields: ['id'] }),
  };
  context.tokens = { admin: adminToken, member: (await app.login(member)).access_token };
});
queries.after(({ app }) => app.close());

type Row = Record<string, unknown>;
const list = (body: unknown) => body as Row[];
const values = (field: string) => (body: unknown) => list(body).map((row) => row[field]);
const keysOf = (body: unknown) => list(body).map((row) => Object.keys(row));

/** `filter=` as JSON text, percent-encoded. */
const filter = (value: unknown) => `filter=${encodeURIComponent(JSON.stringify(value))}`;

const refused = (name: string, path: string, expectedField?: string): Scenario => ({
  name,
  method: 'GET',
  path,
  as: 'admin',
  expectedStatus: 400,
  expectedCode: 'INVALID_QUERY',
  ...(expectedField ? { expectedField } : {}),
});

/** The INVALID_QUERY reason, as clients branch on it. */
const reason =
  (expected: string) =>
  (body: unknown): void => {
    const error = (body as { errors: Array<{ extensions: { reason?: string } }> }).errors[0];
    assert.is(error?.extensions.reason, expected);
  };

const rows: Scenario[] = [
  // Who may ask does not change: the lists stay the admins', whatever the parameters.
  ...['/users', '/roles', '/permissions'].flatMap((path): Scenario[] => [
    {
      name: `anonymous ${path}?fields=id → 401`,
      method: 'GET',
      path: `${path}?fields=id`,
      expectedStatus: 401,
      expectedCode: 'UNAUTHENTICATED',
    },
    {
      name: `non-admin ${path} with a filter → 403, not a hint about the filter`,
      method: 'GET',
      path: `${path}?${filter({ nope: { _eq: 1 } })}`,
      as: 'member',
      expectedStatus: 403,
      expectedCode: 'FORBIDDEN',
    },
  ]),
  {
    name: 'non-admin /users/:id?fields=email → 403',
    method: 'GET',
    path: '/users/00000000-0000-4000-8000-000000000000?fields=email',
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },

  // /users
  {
    name: '/users?fields=id,email → only those, in that order',
    method: 'GET',
    path: '/users?fields=email,id&sort=email',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      for (const keys of keysOf(body)) assert.equal(keys, ['email', 'id']);
      assert.equal(values('email')(body), [...(values('email')(body) as string[])].sort());
    },
  },
  {
    name: '/users?filter[status][_eq]=suspended → the suspended user',
    method: 'GET',
    path: '/users?filter[status][_eq]=suspended&fields=email',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ email: 'sid@example.com' }]),
  },
  {
    name: '/users?filter[token][_nnull]=true → the static token holder, token masked',
    method: 'GET',
    path: '/users?filter[token][_nnull]=true&fields=email,token',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ email: 'tom@example.com', token: MASKED_TOKEN }]),
  },
  {
    name: '/users?filter={"token":{"_eq":null}} is _null → everyone else',
    method: 'GET',
    path: `/users?${filter({ token: { _eq: null } })}&fields=email&sort=email`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.is(list(body).length, 3),
  },
  {
    name: '/users?filter[role][_eq]=<editors> → the member',
    method: 'GET',
    path: '/users?fields=email&filter[role][_eq]=ROLE',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ email: 'mia@example.com' }]),
  },
  {
    name: '/users?filter[id][_eq]=$CURRENT_USER → the caller',
    method: 'GET',
    path: '/users?filter[id][_eq]=$CURRENT_USER&fields=id',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.is(list(body).length, 1),
  },
  {
    name: '/users?sort=-email&limit=2 → the last two e-mails, descending',
    method: 'GET',
    path: '/users?sort=-email&limit=2&fields=email',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(values('email')(body), ['tom@example.com', 'sid@example.com']),
  },
  {
    name: '/users?sort=email&page=2&limit=1 → the second',
    method: 'GET',
    path: '/users?sort=email&page=2&limit=1&fields=email',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(values('email')(body), ['mia@example.com']),
  },
  {
    name: '/users?search=VICIOUS → the user of that last name',
    method: 'GET',
    path: '/users?search=VICIOUS&fields=email',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ email: 'sid@example.com' }]),
  },
  {
    name: '/users?meta=* → counts in headers (plain profile), the body still a bare array',
    method: 'GET',
    path: '/users?meta=*&filter[status][_eq]=active&limit=1',
    as: 'admin',
    expectedStatus: 200,
    expectedHeaders: { 'x-total-count': '4', 'x-filter-count': '3' },
    expectedBody: (body) => assert.is(list(body).length, 1),
  },
  refused('/users?fields=json(…) on a field that is not json → 400', '/users?fields=json(email,a)'),

  // The secrets: unknown as fields, never sortable or searchable, presence only in a filter.
  {
    ...refused(
      '/users?fields=password_hash → 400 UNKNOWN_FIELD',
      '/users?fields=password_hash',
      'password_hash',
    ),
    expectedBody: reason('UNKNOWN_FIELD'),
  },
  refused('/users?fields=*,password_hash → 400', '/users?fields=*,password_hash', 'password_hash'),
  refused('/users?fields=token_digest → 400', '/users?fields=token_digest', 'token_digest'),
  refused('/users?fields=passwordHash → 400', '/users?fields=passwordHash', 'passwordHash'),
  refused('/users?sort=password_hash → 400', '/users?sort=password_hash', 'password_hash'),
  {
    ...refused('/users?sort=token → 400, a secret has no order', '/users?sort=-token', 'token'),
    expectedBody: reason('INVALID_VALUE'),
  },
  {
    ...refused(
      '/users?filter[token][_eq]=… → 400 UNSUPPORTED_OPERATOR',
      `/users?filter[token][_eq]=${STATIC_TOKEN}`,
      'token',
    ),
    expectedBody: reason('UNSUPPORTED_OPERATOR'),
  },
  refused('/users?filter[token][_starts_with]=s → 400', '/users?filter[token][_starts_with]=s', 'token'),
  refused('/users?filter[token][_in]=… → 400', `/users?filter[token][_in]=${DIGEST}`, 'token'),
  refused(
    '/users?filter[token][_empty]=true → 400, only _null/_nnull',
    '/users?filter[token][_empty]=true',
    'token',
  ),
  refused(
    '/users?filter[password_hash][_null]=true → 400 UNKNOWN_FIELD',
    '/users?filter[password_hash][_null]=true',
    'password_hash',
  ),
  refused(
    '/users?filter[token_digest][_nnull]=true → 400 UNKNOWN_FIELD',
    '/users?filter[token_digest][_nnull]=true',
    'token_digest',
  ),
  {
    name: '/users?search=<the static token> and search=<its digest> → nobody',
    method: 'GET',
    path: `/users?search=${STATIC_TOKEN.slice(0, 20)}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, []),
  },
  {
    name: '/users?search=<digest prefix> → nobody',
    method: 'GET',
    path: `/users?search=${DIGEST.slice(0, 12)}`,
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, []),
  },

  // Bad input: the items' errors and reasons.
  {
    ...refused('limit above the maximum → LIMIT_ABOVE_MAX', '/users?limit=51'),
    expectedBody: reason('LIMIT_ABOVE_MAX'),
  },
  { ...refused('limit=-1 → LIMIT_ABOVE_MAX', '/roles?limit=-1'), expectedBody: reason('LIMIT_ABOVE_MAX') },
  { ...refused('limit=abc → INVALID_VALUE', '/roles?limit=abc'), expectedBody: reason('INVALID_VALUE') },
  {
    ...refused('offset and page → INVALID_VALUE', '/roles?offset=1&page=2'),
    expectedBody: reason('INVALID_VALUE'),
  },
  { ...refused('page=0 → INVALID_VALUE', '/permissions?page=0'), expectedBody: reason('INVALID_VALUE') },
  {
    ...refused('unknown filter field → UNKNOWN_FIELD', '/roles?filter[nope][_eq]=1', 'nope'),
    expectedBody: reason('UNKNOWN_FIELD'),
  },
  {
    ...refused('unknown operator → UNKNOWN_OPERATOR', '/roles?filter[name][_like]=a', 'name'),
    expectedBody: reason('UNKNOWN_OPERATOR'),
  },
  {
    ...refused(
      '_contains on a boolean → UNSUPPORTED_OPERATOR',
      '/roles?filter[admin_access][_contains]=t',
      'admin_access',
    ),
    expectedBody: reason('UNSUPPORTED_OPERATOR'),
  },
  {
    ...refused('a malformed uuid → INVALID_VALUE', '/users?filter[role][_eq]=abc', 'role'),
    expectedBody: reason('INVALID_VALUE'),
  },
  {
    ...refused('an unknown status → INVALID_VALUE', '/users?filter[status][_eq]=asleep', 'status'),
    expectedBody: reason('INVALID_VALUE'),
  },
  {
    ...refused('filter not JSON → INVALID_VALUE', '/permissions?filter={nope'),
    expectedBody: reason('INVALID_VALUE'),
  },
  {
    ...refused('a filter nested deeper than 10 → MAX_DEPTH', `/roles?${filter(nested(11))}`),
    expectedBody: reason('MAX_DEPTH'),
  },
  {
    ...refused(
      'more than 500 conditions → MAX_CONDITIONS',
      `/roles?filter={"_or":[${Array(501).fill('{}').join(',')}]}`,
    ),
    expectedBody: reason('MAX_CONDITIONS'),
  },
  {
    ...refused('search over 256 characters → MAX_SEARCH_LENGTH', `/users?search=${'a'.repeat(257)}`),
    expectedBody: reason('MAX_SEARCH_LENGTH'),
  },
  {
    ...refused('sort on a json field → INVALID_VALUE', '/permissions?sort=fields', 'fields'),
    expectedBody: reason('INVALID_VALUE'),
  },
  {
    ...refused('sort twice → INVALID_VALUE', '/roles?sort=name,-name', 'name'),
    expectedBody: reason('INVALID_VALUE'),
  },
  {
    ...refused('unknown meta → INVALID_VALUE', '/roles?meta=everything'),
    expectedBody: reason('INVALID_VALUE'),
  },
  {
    ...refused('meta=next → UNSUPPORTED_PARAMETER', '/roles?meta=next'),
    expectedBody: reason('UNSUPPORTED_PARAMETER'),
  },
  {
    ...refused('meta=estimated_total_count → UNSUPPORTED_PARAMETER', '/users?meta=estimated_total_count'),
    expectedBody: reason('UNSUPPORTED_PARAMETER'),
  },
  {
    ...refused('after → UNSUPPORTED_PARAMETER', '/users?after=abc'),
    expectedBody: reason('UNSUPPORTED_PARAMETER'),
  },
  {
    ...refused('aggregate → UNSUPPORTED_PARAMETER', '/permissions?aggregate[count]=*'),
    expectedBody: reason('UNSUPPORTED_PARAMETER'),
  },
  {
    ...refused('deep → UNSUPPORTED_PARAMETER', '/roles?deep[x][_limit]=1'),
    expectedBody: reason('UNSUPPORTED_PARAMETER'),
  },
  {
    ...refused('a relational path → UNKNOWN_FIELD', '/users?fields=role.name'),
    expectedBody: reason('UNKNOWN_FIELD'),
  },

  // /roles
  {
    name: '/roles?filter[admin_access][_eq]=true&fields=name → the admin role only',
    method: 'GET',
    path: '/roles?filter[admin_access][_eq]=true&fields=name',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(keysOf(body), [['name']]),
  },
  {
    name: '/roles?search=ARTICLES → editors',
    method: 'GET',
    path: '/roles?search=ARTICLES&fields=name,description',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ name: 'editors', description: 'Writes articles' }]),
  },
  {
    name: '/roles?sort=-admin_access&limit=1&meta=total_count → the admin role, one page, the total',
    method: 'GET',
    path: '/roles?sort=-admin_access&limit=1&meta=total_count&fields=admin_access',
    as: 'admin',
    expectedStatus: 200,
    expectedHeaders: { 'x-total-count': '2' },
    expectedBody: (body) => assert.equal(body, [{ admin_access: true }]),
  },
  {
    name: '/roles?offset=5 → empty',
    method: 'GET',
    path: '/roles?offset=5',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, []),
  },

  {
    name: '/roles?sort=name&page=2&limit=1 → the second role',
    method: 'GET',
    path: '/roles?sort=name&page=2&limit=1&fields=name',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ name: 'editors' }]),
  },
  {
    name: '/users?sort=email&offset=3 → the last user',
    method: 'GET',
    path: '/users?sort=email&offset=3&fields=email',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ email: 'tom@example.com' }]),
  },

  // /permissions
  {
    name: '/permissions?filter[action][_eq]=read&fields=collection,action',
    method: 'GET',
    path: '/permissions?filter[action][_eq]=read&fields=collection,action',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ collection: 'articles', action: 'read' }]),
  },
  {
    name: '/permissions?filter[role][_null]=true → the public permission',
    method: 'GET',
    path: '/permissions?filter[role][_null]=true&fields=action,role',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ action: 'create', role: null }]),
  },
  {
    name: '/permissions?fields=json(permissions, id._gt) → the value inside, under Directus key',
    method: 'GET',
    path: '/permissions?filter[action][_eq]=read&fields=id,json(permissions,id._gt)',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(Object.values(list(body)[0]!)[1], 0),
  },
  {
    name: '/permissions?sort=action&page=2&limit=1 → the read permission',
    method: 'GET',
    path: '/permissions?sort=action&limit=1&page=2&fields=action',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ action: 'read' }]),
  },
  {
    name: '/permissions?sort=action&limit=1&offset=1 → the read permission',
    method: 'GET',
    path: '/permissions?sort=action&limit=1&offset=1&fields=action',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => assert.equal(body, [{ action: 'read' }]),
  },
  {
    name: '/permissions?sort=-action&search=articles&meta=* → both, read first, counted',
    method: 'GET',
    path: '/permissions?sort=-action&search=articles&meta=*&fields=action',
    as: 'admin',
    expectedStatus: 200,
    expectedHeaders: { 'x-total-count': '2', 'x-filter-count': '2' },
    expectedBody: (body) => assert.equal(body, [{ action: 'read' }, { action: 'create' }]),
  },
];

function nested(depth: number): unknown {
  return depth === 1 ? { name: { _null: true } } : { _and: [nested(depth - 1)] };
}

for (const row of rows) {
  queries(row.name, async ({ app, tokens, ids }) => {
    await runScenario(app, tokens, { ...row, path: row.path.replace('ROLE', ids.editors) });
  });
}

queries('no parameter: the answers are as before (every field, every record)', async ({ app, tokens }) => {
  const users = await app.request('GET', '/users', { token: tokens.admin });
  assert.is(users.status, 200);
  assert.is(list(users.body).length, 4);
  for (const keys of keysOf(users.body)) {
    assert.equal(keys, ['id', 'email', 'first_name', 'last_name', 'role', 'status', 'token']);
  }
  assert.is(users.headers.get('x-total-count'), null);
  const roles = await app.request('GET', '/roles', { token: tokens.admin });
  assert.equal(keysOf(roles.body)[0], ['id', 'name', 'description', 'admin_access']);
  const permissions = await app.request('GET', '/permissions', { token: tokens.admin });
  assert.equal(keysOf(permissions.body)[0], [
    'id',
    'role',
    'collection',
    'action',
    'permissions',
    'validation',
    'presets',
    'fields',
  ]);
});

queries('the get-one endpoints take fields', async ({ app, tokens, ids }) => {
  const admin = { token: tokens.admin };
  const user = await app.request('GET', `/users/${ids.holder}?fields=email,token`, admin);
  assert.equal(user.body, { email: 'tom@example.com', token: MASKED_TOKEN });
  const role = await app.request('GET', `/roles/${ids.editors}?fields=name`, admin);
  assert.equal(role.body, { name: 'editors' });
  const permission = await app.request('GET', `/permissions/${ids.articles}?fields=collection,action`, admin);
  assert.equal(permission.body, { collection: 'articles', action: 'read' });
  const me = await app.request('GET', '/users/me?fields=first_name,role', { token: tokens.member });
  assert.equal(me.body, { first_name: 'Mia', role: ids.editors });
  assertError(
    await app.request('GET', '/users/me?fields=password_hash', { token: tokens.member }),
    400,
    'INVALID_QUERY',
    'password_hash',
  );
  assertError(
    await app.request('GET', `/roles/${ids.editors}?fields=nope`, admin),
    400,
    'INVALID_QUERY',
    'nope',
  );
  const missing = await app.request('GET', '/users/00000000-0000-4000-8000-000000000000?fields=email', admin);
  assertError(missing, 404, 'NOT_FOUND');
});

queries('no combination of parameters reaches a secret', async ({ app, tokens }) => {
  const asked = [
    '/users',
    '/users?fields=*',
    '/users?fields=*,token',
    '/users?fields=token&filter[token][_nnull]=true',
    '/users?meta=*&search=tom',
    `/users?search=${DIGEST.slice(0, 8)}`,
    '/users?sort=-email&fields=*,email',
    `/users/me?fields=*`,
  ];
  const answers: TestResponse[] = [];
  for (const path of asked) answers.push(await app.request('GET', path, { token: tokens.admin }));
  answers.push(await app.request('GET', '/users/me?fields=*,token', { token: tokens.member }));
  for (const answer of answers) {
    assert.is(answer.status, 200, answer.text);
    assert.not.match(answer.text, DIGEST);
    assert.not.match(answer.text, STATIC_TOKEN);
    assert.not.match(answer.text, '$argon2');
    assert.not.match(answer.text, /password|digest|hash/i);
    for (const value of Object.values(answer.headers)) assert.not.match(String(value), DIGEST);
  }
});

queries.run();

const directus = suite<{ app: TestApp; token: string }>('system collection queries in the directus profile');
directus.before(async (context) => {
  context.app = await startTestApp({ env: { API_PROFILE: 'directus' } });
  const admin = await context.app.seedAdmin();
  await context.app.createUser({ email: 'zoe@example.com' });
  // The directus profile wraps the login answer in `data` too.
  const login = (await context.app.login(admin)) as unknown as { data: { access_token: string } };
  context.token = login.data.access_token;
});
directus.after(({ app }) => app.close());

directus('meta is an object beside data; without meta, data only', async ({ app, token }) => {
  const counted = await app.request('GET', '/users?meta=*&fields=email&sort=email&limit=1', { token });
  assert.equal(counted.body, {
    data: [{ email: counted.text.match(/admin-\d+@example\.com/)?.[0] }],
    meta: { total_count: 2, filter_count: 2 },
  });
  assert.is(counted.headers.get('x-total-count'), null);
  const bare = await app.request('GET', '/roles?fields=name', { token });
  assert.equal(bare.body, { data: [{ name: 'Administrator' }] });
  const one = await app.request('GET', '/users/me?fields=email', { token });
  assert.equal(Object.keys((one.body as { data: object }).data), ['email']);
});

directus.run();
