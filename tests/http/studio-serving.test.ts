import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { cargosSchema } from '../support/cargos-schema.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const serving = suite<{ app: TestApp }>('GET /studio: the page, its assets, and nothing else');

serving.before(async (context) => {
  context.app = await startTestApp();
});
serving.after(async ({ app }) => {
  await app.close();
});

const get = (app: TestApp, path: string) => fetch(`${app.url}${path}`);

serving('every path below /studio answers the page, so a reload of any screen works', async ({ app }) => {
  for (const path of ['/studio', '/studio/', '/studio/collections/cargos', '/studio/collections/a%20b/1']) {
    const answer = await get(app, path);
    assert.is(answer.status, 200, path);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
    assert.is(answer.headers.get('cache-control'), 'no-cache');
    assert.match(answer.headers.get('content-security-policy') ?? '', /^default-src 'self';/);
    assert.match(await answer.text(), /<meta name="datagate-profile" content="plain" \/>/);
  }
  assert.is((await get(app, '/studioo')).status, 404);
});

serving('only the built assets are served, never another file', async ({ app }) => {
  const html = await (await get(app, '/studio/')).text();
  for (const [, path] of html.matchAll(/(?:src|href)="(\/studio\/assets\/[^"]+)"/g)) {
    const answer = await get(app, path!);
    assert.is(answer.status, 200, path);
    assert.is(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  }
  for (const path of [
    '/studio/assets/nope.js',
    '/studio/assets/..%2Findex.html',
    '/studio/assets/..%2F..%2Fpackage.json',
    '/studio/assets/%2e%2e%2f%2e%2e%2fpackage.json',
  ]) {
    const answer = await get(app, path);
    assert.is(answer.status, 404, path);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  }
});

serving('the page tells the app the response profile', async () => {
  const app = await startTestApp({ env: { API_PROFILE: 'directus' } });
  try {
    assert.match(
      await (await get(app, '/studio/')).text(),
      /<meta name="datagate-profile" content="directus" \/>/,
    );
  } finally {
    await app.close();
  }
});

serving('studio.enabled: false leaves every /studio path to 404', async () => {
  const app = await startTestApp({ env: { STUDIO_ENABLED: 'false' } });
  try {
    for (const path of ['/studio', '/studio/', '/studio/assets/nope.js']) {
      assert.is((await get(app, path)).status, 404, path);
    }
  } finally {
    await app.close();
  }
});

serving('the OpenAPI document names the key field of an item the caller may read', async ({ app }) => {
  (app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
  const admin = await app.seedAdmin();
  const { access_token: token } = await app.login(admin);
  const document = (await app.request('GET', '/server/specs/oas', { token })).body as {
    components: { schemas: Record<string, { 'x-primary-key'?: string }> };
  };
  assert.is(document.components.schemas['cargos.Item']?.['x-primary-key'], 'id');

  const role = await app.createRole({ name: 'Keyless reader' });
  await app.request('POST', '/permissions', {
    token,
    body: { role: role.id, collection: 'cargos', action: 'read', fields: ['description'] },
  });
  const reader = await app.createUser({ role: role.id });
  const { access_token: readerToken } = await app.login(reader);
  const seen = (await app.request('GET', '/server/specs/oas', { token: readerToken }))
    .body as typeof document;
  assert.ok(seen.components.schemas['cargos.Item'], 'the reader may list cargos');
  assert.is(
    seen.components.schemas['cargos.Item']?.['x-primary-key'],
    undefined,
    'a hidden key is not named',
  );
});

serving.run();
