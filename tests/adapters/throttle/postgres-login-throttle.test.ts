import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postgresLoginThrottle } from '../../../src/adapters/throttle/postgres-login-throttle.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { DEFAULT_LOGIN_BUDGETS } from '../../support/auth-fixture.ts';
import { postgresOrSkip, testDatabaseUrl } from '../../support/databases.ts';

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

const onServer = postgresOrSkip('PostgreSQL login throttle on a server');

onServer('a store that failed to start is tried again at the next login', async () => {
  const adminUrl = testDatabaseUrl();
  const database = `datagate_throttle_late_${process.pid}_${Date.now().toString(36)}`;
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const throttle = postgresLoginThrottle(DEFAULT_LOGIN_BUDGETS, { url: url.toString(), ...timeouts });
  try {
    await throttle.admit(attempt).then(
      () => assert.unreachable('admitted before its database existed'),
      (error: unknown) => assert.match(String(error), /does not exist/),
    );
    await administer(adminUrl, `create database "${database}"`);
    assert.is(await throttle.admit(attempt), 0);
  } finally {
    await throttle.close();
    await administer(adminUrl, `drop database if exists "${database}" with (force)`);
  }
});

async function administer(url: string, statement: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

onServer.run();
