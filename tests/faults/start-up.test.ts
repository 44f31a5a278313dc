import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { unavailableError } from '../../src/adapters/persistence/database-unreachable.ts';
import { Readiness } from '../../src/application/server/readiness.ts';
import { StartUp, type StartUpOptions } from '../../src/application/server/start-up.ts';
import { TYPES } from '../../src/container.ts';
import { invalidPayload } from '../../src/domain/errors.ts';
import { startTestApp } from '../support/test-app.ts';
import { assertUnavailable, call, healthOf } from './http.ts';

const refused = () =>
  unavailableError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))!;
const timedOut = () => unavailableError(new Error('timeout exceeded when trying to connect'))!;

/** Work failing with the given errors in turn, then succeeding with 'done'. */
function scripted(failures: unknown[]) {
  let attempts = 0;
  return {
    attempts: () => attempts,
    work: async () => {
      const failure = failures[attempts++];
      if (failure) throw failure;
      return 'done';
    },
  };
}

function recording() {
  const logged: string[] = [];
  const options: StartUpOptions = {
    retryIntervalMs: 5,
    describe: (error) => String((error as Error).cause),
    onFailure: (reason) => logged.push(`failure: ${reason}`),
    onReady: (failures) => logged.push(`ready after ${failures}`),
  };
  return { logged, options };
}

const startUp = suite('start-up work, retried while the database is unreachable');

startUp('retries every interval until the work succeeds, logging each new reason once', async () => {
  const script = scripted([refused(), refused(), refused(), timedOut(), timedOut(), refused()]);
  const readiness = Readiness.starting();
  const { logged, options } = recording();
  const run = new StartUp(script.work, readiness, options);
  await run.start();
  assert.not.ok(readiness.isReady);
  assert.match(readiness.reason ?? '', 'ECONNREFUSED');
  assert.is(await run.done, 'done');
  assert.ok(readiness.isReady);
  assert.is(script.attempts(), 7);
  assert.equal(logged, [
    'failure: Error: connect ECONNREFUSED',
    'failure: Error: timeout exceeded when trying to connect',
    'failure: Error: connect ECONNREFUSED',
    'ready after 6',
  ]);
});

startUp('a failure that is not the database being unreachable stops the first attempt at once', async () => {
  const script = scripted([invalidPayload('bad admin password', 'password')]);
  const run = new StartUp(script.work, Readiness.starting(), recording().options);
  try {
    await run.start();
    assert.unreachable('start() should have thrown');
  } catch (error) {
    assert.match((error as Error).message, 'bad admin password');
  }
  run.stop();
});

startUp('…and ends the retries later on, rejecting `done` so the process can stop', async () => {
  const script = scripted([refused(), new Error('migration 0003 failed')]);
  const readiness = Readiness.starting();
  const run = new StartUp(script.work, readiness, recording().options);
  await run.start();
  try {
    await run.done;
    assert.unreachable('done should have rejected');
  } catch (error) {
    assert.is((error as Error).message, 'migration 0003 failed');
  }
  assert.not.ok(readiness.isReady);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.is(script.attempts(), 2, 'no retry after such a failure');
});

startUp('stop() ends the retries and rejects `done`', async () => {
  const script = scripted(Array.from({ length: 1000 }, refused));
  const run = new StartUp(script.work, Readiness.starting(), recording().options);
  await run.start();
  run.stop();
  const attempts = script.attempts();
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.is(script.attempts(), attempts);
  try {
    await run.done;
    assert.unreachable('done should have rejected');
  } catch (error) {
    assert.match((error as Error).message, 'stopped');
  }
});

startUp.run();

const gate = suite('the HTTP readiness gate');

gate('until start-up is done only the health check answers, and it says why', async () => {
  const readiness = Readiness.starting();
  const app = await startTestApp({
    rebind: (container) => container.rebind<Readiness>(TYPES.Readiness).toConstantValue(readiness),
  });
  try {
    const admin = await app.seedAdmin();
    for (const [method, path] of [
      ['POST', '/auth/login'],
      ['GET', '/users/me'],
      ['GET', '/items/anything'],
      ['GET', '/server/info'],
      ['GET', '/no/such/route'],
    ] as const) {
      const body = method === 'POST' ? { email: admin.email, password: admin.password } : undefined;
      assertUnavailable(await call(app.url, method, path, { body }));
    }
    readiness.stillStarting('connection refused (ECONNREFUSED)');
    const health = await call(app.url, 'GET', '/server/health');
    assert.is(health.status, 503);
    assert.is(healthOf(health).checks.database.detail, 'starting: connection refused (ECONNREFUSED)');

    readiness.markReady();
    assert.is((await call(app.url, 'GET', '/server/health')).status, 200);
    const login = await call(app.url, 'POST', '/auth/login', {
      body: { email: admin.email, password: admin.password },
    });
    assert.is(login.status, 200);
  } finally {
    await app.close();
  }
});

gate.run();
