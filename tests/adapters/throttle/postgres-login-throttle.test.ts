import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postgresLoginThrottle } from '../../../src/adapters/throttle/postgres-login-throttle.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { DEFAULT_LOGIN_BUDGETS } from '../../support/auth-fixture.ts';
import { administer, postgresSkip, testDatabaseUrl } from '../../support/postgres-server.ts';
import { skippableSuite } from '../../support/skippable-suite.ts';

const attempt = { email: 'ada@example.com', clientAddress: '192.0.2.1' };
const timeouts = { connectTimeout: 2000, queryTimeout: 2000 };

const test = suite('PostgreSQL login throttle');

test('an unreachable database answers SERVICE_UNAVAILABLE', async () => {
  // Port 1 on the loopback refuses at once: nothing listens there.
  const throttle = postgresLoginThrottle(DEFAULT_LOGIN_BUDGETS, {
    url: 'postgresql://postgres@127.0.0.1:1/none',
    ...timeouts,
  });
  try {
    await throttle.admit(attempt);
    assert.unreachable('admitted without a database');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'SERVICE_UNAVAILABLE');
  } finally {
    await throttle.close();
  }
});

test.run();

const onServer = skippableSuite('PostgreSQL login throttle on a server', postgresSkip);

onServer('a store that failed to start is tried again at the next login', async () => {
  const database = `datagate_throttle_late_${process.pid}_${Date.now().toString(36)}`;
  const throttle = postgresLoginThrottle(DEFAULT_LOGIN_BUDGETS, {
    url: testDatabaseUrl(database),
    ...timeouts,
  });
  try {
    await throttle.admit(attempt).then(
      () => assert.unreachable('admitted before its database existed'),
      (error: unknown) => assert.match(String(error), /does not exist/),
    );
    await administer(`create database "${database}"`);
    assert.is(await throttle.admit(attempt), 0);
  } finally {
    await throttle.close();
    await administer(`drop database if exists "${database}" with (force)`);
  }
});

onServer.run();
