import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ZodType, z } from 'zod';
import {
  collectionAnswer,
  fieldAnswer,
  healthAnswer,
  permissionAnswer,
  roleAnswer,
  serverInfoAnswer,
  tokenPairAnswer,
  userAnswer,
} from '../../src/adapters/http/openapi/answer-schemas.ts';
import type { OpenApiDocument } from '../../src/adapters/http/openapi/openapi-types.ts';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { registeredRoutes } from '../security/fuzz/operations.ts';
import { cargosSchema } from '../support/cargos-schema.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Routes the document leaves out: SEARCH is no OpenAPI 3.1 method, /docs and /studio serve web pages and
 * their files (docs/api.md §16), and /files/tus speaks TUS (headers, not JSON bodies), described in §15.
 */
const UNDOCUMENTED = /^(SEARCH |GET \/docs|GET \/studio|[A-Z]+ \/files\/tus)/;

const coverage = suite<{ app: TestApp; admin: string; login: unknown }>('the document and the routes');

coverage.before(async (context) => {
  context.app = await startTestApp();
  (context.app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
  const admin = await context.app.seedAdmin();
  const login = await context.app.request('POST', '/auth/login', { body: admin });
  context.login = login.body;
  context.admin = (login.body as { access_token: string }).access_token;
});
coverage.after(({ app }) => app.close());

coverage('the admin document describes every route but SEARCH and the explorer files', async (context) => {
  const document = (await context.app.request('GET', '/server/specs/oas', { token: context.admin }))
    .body as OpenApiDocument;
  const documented = new Set(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, ':')}`),
    ),
  );
  const undocumented = registeredRoutes(context.app.container)
    .map(
      ({ method, route }) =>
        `${method} ${route.replace(/:[a-z]+/g, ':').replace('/items/:', '/items/cargos')}`,
    )
    .filter((route) => !UNDOCUMENTED.test(route) && !documented.has(route));
  assert.equal(undocumented, []);
});

/** The body parses, and parsing drops nothing: the schema names every member the API sends. */
function assertAnswers(schema: ZodType, body: unknown, what: string) {
  const parsed = schema.safeParse(body);
  assert.ok(parsed.success, `${what}: ${parsed.error?.message}`);
  assert.equal(parsed.data, body, `${what} has members its schema does not name`);
}

coverage('real answers match the schemas the document is written from', async (context) => {
  const { app, admin } = context;
  assertAnswers(tokenPairAnswer('plain'), context.login, 'POST /auth/login');
  const role = await app.createRole({ name: 'Reader' });
  const grant = { role: role.id, collection: 'cargos', action: 'read', fields: ['id'] };
  assert.is((await app.request('POST', '/permissions', { token: admin, body: grant })).status, 200);
  const answers: Array<[string, ZodType]> = [
    ['/users/me', userAnswer],
    ['/users', z.array(userAnswer)],
    ['/roles', z.array(roleAnswer)],
    ['/permissions', z.array(permissionAnswer)],
    ['/collections', z.array(collectionAnswer)],
    ['/fields/cargos', z.array(fieldAnswer)],
    ['/server/health', healthAnswer],
    ['/server/info', serverInfoAnswer],
  ];
  for (const [path, schema] of answers) {
    const response = await app.request('GET', path, { token: admin });
    assert.is(response.status, 200, `${path}: ${response.text}`);
    assertAnswers(schema, response.body, `GET ${path}`);
  }
});

coverage.run();
