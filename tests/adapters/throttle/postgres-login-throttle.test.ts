import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LoginKeys } from '../../../src/adapters/throttle/login-keys.ts';
import { postgresLoginThrottle } from '../../../src/adapters/throttle/postgres-login-throttle.ts';
import type { RateLimiterLoginThrottle } from '../../../src/adapters/throttle/rate-limiter-login-throttle.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { DEFAULT_LOGIN_BUDGETS } from '../../support/auth-fixture.ts';
import { administer, postgresSkip, testDatabaseUrl } from '../../support/postgres-server.ts';
import { skippableSuite } from '../../support/skippable-suite.ts';

const attempt = { email: 'ada@example.com', clientAddress: '192.0.2.1' };
const KEYS = new LoginKeys('test-secret-of-at-least-32-characters-0123456789');
const timeouts = { connectTimeout: 2000, queryTimeout: 2000 };

const test = suite('PostgreSQL login throttle');

test('an unreachable database answers SERVICE_UNAVAILABLE', async () => {
  // Port 1 on the loopback refuses at once: nothing listens there.
  const throttle = postgresLoginThrottle(DEFAULT_LOGIN_BUDGETS, KEYS, {
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
  const throttle = postgresLoginThrottle(DEFAULT_LOGIN_BUDGETS, KEYS, {
    url: testDatabaseUrl(database),
    ...timeouts,
  });
  try {
    await throttle.admit(attempt).then(
      () => assert.unreachable('admitted before its database existed'),
      (error: unknown) => {
        // A database that does not exist (3D000) may yet be created: a 503, not a 500.
        assert.is((error as DomainError).code, 'SERVICE_UNAVAILABLE');
        assert.match(String((error as Error).cause), /does not exist/);
      },
    );
    await administer(`create database "${database}"`);
    assert.is(await throttle.admit(attempt), 0);
  } finally {
    await throttle.close();
    await administer(`drop database if exists "${database}" with (force)`);
  }
});

onServer('a recent login holds for another instance on the same table, as after a restart', async () => {
  await onDatabase(async (url) => {
    const budgets = { ...DEFAULT_LOGIN_BUDGETS, address: { failures: 3, window: 60_000 } };
    const [before, after] = [1, 2].map(() =>
      postgresLoginThrottle(budgets, KEYS, { url, ...timeouts }, 'restart_throttle'),
    ) as [RateLimiterLoginThrottle, RateLimiterLoginThrottle];
    try {
      assert.is(await before.admit(attempt), 0);
      await before.succeeded(attempt);
      await before.close();
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
        assert.is(await after.admit({ ...attempt, email }), 0);
      }
      assert.ok((await after.admit({ ...attempt, email: 'd@example.com' })) > 0, 'the address is spent');
      assert.is(await after.admit(attempt), 0);
    } finally {
      await after.close();
    }
  });
});

onServer(
  'the table keeps digests under the secret: no e-mail or address, nothing for another secret',
  async () => {
    await onDatabase(async (url) => {
      const table = 'keyed_throttle';
      const budgets = { ...DEFAULT_LOGIN_BUDGETS, address: { failures: 1, window: 60_000 } };
      const throttle = postgresLoginThrottle(budgets, KEYS, { url, ...timeouts }, table);
      const otherSecret = new LoginKeys('another-secret-of-at-least-32-characters-98765');
      const stranger = postgresLoginThrottle(budgets, otherSecret, { url, ...timeouts }, table);
      try {
        assert.is(await throttle.admit(attempt), 0);
        await throttle.succeeded(attempt);
        const rows = await query(url, `select key from ${table}`);
        assert.ok(rows.length > 0);
        for (const { key } of rows) {
          assert.not.match(key, /ada|example|192/);
        }
        assert.is(await stranger.admit({ ...attempt, email: 'eve@example.com' }), 0);
        assert.ok((await stranger.admit(attempt)) > 0, 'the login is recent only under its own secret');
      } finally {
        await throttle.close();
        await stranger.close();
      }
    });
  },
);

/** Runs `work` on a database of its own, dropped after. */
async function onDatabase(work: (url: string) => Promise<void>) {
  const database = `datagate_throttle_${process.pid}_${Date.now().toString(36)}`;
  await administer(`create database "${database}"`);
  try {
    await work(testDatabaseUrl(database));
  } finally {
    await administer(`drop database if exists "${database}" with (force)`);
  }
}

async function query(url: string, statement: string): Promise<Array<{ key: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ key: string }>(statement)).rows;
  } finally {
    await client.end();
  }
}

onServer.run();
