import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FAKE_DATABASE_ADDRESS,
  type FaultyPersistence,
  faultyPersistence,
} from '../support/faulty-persistence.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertUnavailable, call, healthOf, PARCELS_COLLECTION } from './http.ts';

type Context = { faulty: FaultyPersistence; app: TestApp; token: string; itemId: number };

const outage = suite<Context>('database outage through a fault-injecting persistence (no PostgreSQL)');

outage.before(async (context) => {
  context.faulty = faultyPersistence();
  context.app = await startTestApp({ persistence: context.faulty.persistence, captureLogs: true });
  const admin = await context.app.seedAdmin();
  context.token = (await context.app.login(admin)).access_token;
  const created = await context.app.request('POST', '/collections', {
    token: context.token,
    body: PARCELS_COLLECTION,
  });
  assert.is(created.status, 200, created.text);
  const item = await context.app.request('POST', '/items/parcels', {
    token: context.token,
    body: { label: 'first' },
  });
  context.itemId = (item.body as { id: number }).id;
});
outage.after.each(({ faulty }) => faulty.up());
outage.after(({ app }) => app.close());

outage(
  'every call that needs the database answers exactly the contract 503, and health says why',
  async (context) => {
    const { app, token, itemId } = context;
    context.faulty.down('unavailable');
    const requests: Array<[string, string, unknown?]> = [
      ['GET', `/items/parcels/${itemId}`],
      ['GET', '/items/parcels'],
      ['POST', '/items/parcels', { label: 'second' }],
      ['PATCH', `/items/parcels/${itemId}`, { label: 'changed' }],
      ['DELETE', `/items/parcels/${itemId}`],
      ['GET', '/users'],
      ['POST', '/roles', { name: 'Operators' }],
      ['POST', '/collections', { collection: 'other', fields: [{ field: 'id', type: 'integer' }] }],
      ['POST', '/utils/cache/clear'],
    ];
    for (const [method, path, body] of requests) {
      const answer = await call(app.url, method, path, {
        token,
        body,
        headers: { 'X-Request-Id': `outage-${method}` },
      });
      assertUnavailable(answer);
      assert.is(answer.headers.get('x-request-id'), `outage-${method}`);
      assert.not.match(answer.text, /ECONNREFUSED|10\.11\.12\.13|at .*\.ts/);
    }
    const login = await call(app.url, 'POST', '/auth/login', {
      body: { email: 'nobody@example.com', password: 'whatever-password' },
    });
    assertUnavailable(login);

    const health = await call(app.url, 'GET', '/server/health');
    assert.is(health.status, 503);
    assert.equal(healthOf(health), {
      status: 'error',
      checks: {
        database: { status: 'error', detail: 'connection refused (ECONNREFUSED)', responseTimeMs: 0 },
      },
    });
    // An outage is not a bug: 503s are access-logged, never logged as failures.
    assert.not.ok(app.logs.some((line) => line.msg === 'request failed'));
    assert.ok(app.logs.some((line) => line.requestId === 'outage-GET' && line.status === 503));
  },
);

outage(
  'the same process serves again once the database is back, and nothing was written meanwhile',
  async (context) => {
    const { app, token, itemId } = context;
    context.faulty.down('unavailable');
    assertUnavailable(await call(app.url, 'POST', '/items/parcels', { token, body: { label: 'lost' } }));
    context.faulty.up();
    const list = await call(app.url, 'GET', '/items/parcels?fields=label', { token });
    assert.equal(list.body, [{ label: 'first' }]);
    const read = await call(app.url, 'GET', `/items/parcels/${itemId}`, { token });
    assert.is(read.status, 200);
    assert.is((await call(app.url, 'GET', '/server/health')).status, 200);
  },
);

outage(
  'an untranslated driver error is a 500 showing only the request id; the log has the error and id',
  async (context) => {
    const { app, token } = context;
    context.faulty.down('driver');
    const answer = await call(app.url, 'GET', '/items/parcels', {
      token,
      headers: { 'X-Request-Id': 'driver-error-1' },
    });
    assert.is(answer.status, 500);
    assert.is(answer.headers.get('x-request-id'), 'driver-error-1');
    assert.equal(answer.body, {
      errors: [{ message: 'Internal error (request id driver-error-1).', extensions: { code: 'INTERNAL' } }],
    });
    const logged = app.logs.find(
      (line) => line.msg === 'request failed' && line.requestId === 'driver-error-1',
    );
    assert.ok(logged, 'the failure is logged with the request id');
    assert.match(JSON.stringify(logged.err), FAKE_DATABASE_ADDRESS);
    const access = app.logs.filter((line) => line.msg === 'request' && line.requestId === 'driver-error-1');
    assert.equal(
      access.map((line) => line.status),
      [500],
    );
  },
);

outage.run();
