import { validate } from '@readme/openapi-parser';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { assertError } from '../http/scenario.ts';
import { field } from '../support/cargos-schema.ts';
import { startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { assertValidOpenApi } from './valid-openapi.ts';

type Document = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
  components: { securitySchemes: Record<string, unknown> };
  security: unknown[];
};

const routes = suite<{ app: TestApp }>('/server/specs/oas and /docs');

routes.before(async (context) => {
  context.app = await startTestApp();
});
routes.after(({ app }) => app.close());

type Asset = { path: string; status: number; type?: RegExp };

/** Each file the page loads, and paths next to them that must not be reachable. */
const ASSETS: Asset[] = [
  { path: '/docs', status: 200, type: /^text\/html; charset=utf-8$/ },
  { path: '/docs/explorer.js', status: 200, type: /^text\/javascript; charset=utf-8$/ },
  { path: '/docs/swagger-ui-bundle.js', status: 200, type: /^text\/javascript; charset=utf-8$/ },
  { path: '/docs/swagger-ui.css', status: 200, type: /^text\/css; charset=utf-8$/ },
  { path: '/docs/favicon-32x32.png', status: 200, type: /^image\/png$/ },
  { path: '/docs/index.html', status: 404 },
  { path: '/docs/swagger-initializer.js', status: 404 },
  { path: '/docs/package.json', status: 404 },
  { path: '/docs/%2e%2e/package.json', status: 404 },
  { path: '/docs/..%2fpackage.json', status: 404 },
  { path: '/docs/swagger-ui-bundle.js.map', status: 404 },
];

for (const asset of ASSETS) {
  routes(`GET ${asset.path} → ${asset.status}`, async ({ app }) => {
    const response = await fetch(`${app.url}${asset.path}`);
    assert.is(response.status, asset.status);
    if (asset.type) assert.match(response.headers.get('content-type') ?? '', asset.type);
    if (asset.status === 404) assertError(await asJson(response), 404, 'NOT_FOUND');
    // The security headers stay on the explorer too; it needs none of them lifted.
    assert.is(response.headers.get('x-frame-options'), 'DENY');
    assert.is(response.headers.get('x-content-type-options'), 'nosniff');
  });
}

routes('the page and its script load nothing from another origin', async ({ app }) => {
  for (const path of ['/docs', '/docs/explorer.js']) {
    const text = await (await fetch(`${app.url}${path}`)).text();
    assert.not.match(text, /(https?:)?\/\/[a-z]/i, path);
  }
  assert.match(await (await fetch(`${app.url}/docs/explorer.js`)).text(), /url: '\/server\/specs\/oas'/);
});

routes('other methods on /docs are 405 with Allow; HEAD works', async ({ app }) => {
  const post = await app.request('POST', '/docs');
  assertError(post, 405, 'METHOD_NOT_ALLOWED');
  assert.match(post.headers.get('allow') ?? '', /GET/);
  const head = await fetch(`${app.url}/docs/swagger-ui.css`, { method: 'HEAD' });
  assert.is(head.status, 200);
});

routes('the document is resolved like any authenticated route', async ({ app }) => {
  assertError(await app.request('GET', '/server/specs/oas', { token: 'not-a-token' }), 401, 'INVALID_TOKEN');
  assertError(await app.request('DELETE', '/server/specs/oas'), 405, 'METHOD_NOT_ALLOWED');
  const anonymous = await app.request('GET', '/server/specs/oas');
  assert.is(anonymous.status, 200);
  assert.is(anonymous.headers.get('cache-control'), 'no-store');
  assert.equal(Object.keys((anonymous.body as Document).components.securitySchemes), [
    'bearer',
    'access_token',
  ]);
});

routes('the validator the tests rely on rejects a broken document', async ({ app }) => {
  const document = (await app.request('GET', '/server/specs/oas')).body as Record<string, unknown>;
  const broken = { ...document, paths: { '/auth/login': { post: { responses: { 200: {} } } } } };
  assert.not.ok((await validate(broken as unknown as Parameters<typeof validate>[0])).valid);
});

routes('any table name and a table without a key still make a valid document', async ({ app }) => {
  const schema = app.persistence.schema as InMemorySchema;
  const note = field('note', 'text', 'text');
  for (const name of ['a b', 'a_b', 'x.Item', 'ünïcode'])
    schema.registerCollection({
      name,
      primaryKey: 'id',
      fields: [field('id', 'integer', 'integer', { nullable: false, isPrimaryKey: true }), note],
    });
  schema.registerCollection({ name: 'keyless', primaryKey: null, fields: [note] });
  const admin = await app.login(await app.seedAdmin());
  const document = (await app.request('GET', '/server/specs/oas', { token: admin.access_token }))
    .body as Document;
  await assertValidOpenApi(document);
  for (const path of [
    '/items/a%20b',
    '/items/a_b',
    '/items/x.Item',
    '/items/%C3%BCn%C3%AFcode',
    '/items/keyless',
  ])
    assert.ok(document.paths[path], path);
  assert.is(document.paths['/items/keyless/{id}'], undefined, 'no key, no item path');
  const listed = await app.request('GET', '/items/a%20b', { token: admin.access_token });
  assert.is(listed.status, 200, 'the path as written in the document works');
});

routes.run();

const profiles = suite('the document and the response profiles');

profiles('directus profile: the document is bare, its 2xx bodies are wrapped in data', async () => {
  await withTestApp(
    async (app) => {
      const response = await app.request('GET', '/server/specs/oas');
      const document = response.body as Document;
      assert.is(document.openapi, '3.1.0');
      const login = document.paths['/auth/login']!.post!.responses['200']!.content;
      assert.match(JSON.stringify(login), /"required":\["data"\]/);
    },
    { env: { API_PROFILE: 'directus' } },
  );
});

profiles('without query tokens the document offers only the bearer scheme', async () => {
  await withTestApp(
    async (app) => {
      const document = (await app.request('GET', '/server/specs/oas')).body as Document;
      assert.equal(Object.keys(document.components.securitySchemes), ['bearer']);
      assert.equal(document.security, [{}, { bearer: [] }]);
    },
    { env: { ALLOW_QUERY_TOKEN: 'false' } },
  );
});

profiles.run();

async function asJson(response: Response) {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown, text };
}
