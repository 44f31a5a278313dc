import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DatabaseHealth } from '../../src/application/ports/database-health.ts';
import { TYPES } from '../../src/container.ts';
import { startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { runScenario, type Scenario } from './scenario.ts';

const server = suite<{ app: TestApp; tokens: Record<string, string> }>('/server');

server.before(async (context) => {
  context.app = await startTestApp();
  const admin = await context.app.seedAdmin();
  const member = await context.app.createUser();
  context.tokens = {
    admin: (await context.app.login(admin)).access_token,
    member: (await context.app.login(member)).access_token,
  };
});
server.after(({ app }) => app.close());

const rows: Scenario[] = [
  {
    name: 'health is public: 200 { status: "ok", checks }',
    method: 'GET',
    path: '/server/health',
    expectedStatus: 200,
    expectedBody: (body) => {
      const report = body as { status: string; checks: { database: { status: string } } };
      assert.is(report.status, 'ok');
      assert.is(report.checks.database.status, 'ok');
    },
  },
  {
    name: 'health ignores tokens: a broken one still gets 200',
    method: 'GET',
    path: '/server/health',
    headers: { Authorization: 'Bearer broken' },
    expectedStatus: 200,
  },
  {
    name: 'info anonymous → 401 UNAUTHENTICATED',
    method: 'GET',
    path: '/server/info',
    expectedStatus: 401,
    expectedCode: 'UNAUTHENTICATED',
  },
  {
    name: 'info non-admin → 403 FORBIDDEN',
    method: 'GET',
    path: '/server/info',
    as: 'member',
    expectedStatus: 403,
    expectedCode: 'FORBIDDEN',
  },
  {
    name: 'info admin → version and uptime',
    method: 'GET',
    path: '/server/info',
    as: 'admin',
    expectedStatus: 200,
    expectedBody: (body) => {
      const info = body as { version: string; uptime: number };
      assert.match(info.version, /^\d+\.\d+\.\d+/);
      assert.type(info.uptime, 'number');
    },
  },
];
for (const row of rows) server(row.name, ({ app, tokens }) => runScenario(app, tokens, row));

server('health answers 503 with status "error" when the database check fails', () =>
  withTestApp(
    async (app) => {
      const response = await app.request('GET', '/server/health');
      assert.is(response.status, 503);
      assert.is((response.body as { status: string }).status, 'error');
    },
    {
      rebind: (container) =>
        container
          .rebind<DatabaseHealth>(TYPES.DatabaseHealth)
          .toConstantValue({ check: async () => ({ status: 'error', responseTimeMs: 1 }) }),
    },
  ),
);

for (const profile of ['plain', 'directus']) {
  server(`ping is public and answers the text pong, unwrapped, in the ${profile} profile`, () =>
    withTestApp(
      async (app) => {
        for (const headers of [{}, { Authorization: 'Bearer broken' }] as Array<Record<string, string>>) {
          const response = await fetch(`${app.url}/server/ping`, { headers });
          assert.is(response.status, 200);
          assert.is(response.headers.get('content-type'), 'text/plain; charset=utf-8');
          assert.is(await response.text(), 'pong');
        }
      },
      { env: { API_PROFILE: profile } },
    ),
  );
}

server('ping is in the OpenAPI document, callable without a token', async ({ app, tokens }) => {
  const document = (await app.request('GET', '/server/specs/oas', { token: tokens.admin })).body as {
    paths: Record<string, { get?: { security?: unknown[] } }>;
  };
  assert.equal(document.paths['/server/ping']?.get?.security, []);
});

server.run();
