import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configSchema } from '../../../src/adapters/config/config-schema.ts';
import {
  createLoginThrottle,
  loginThrottleStore,
} from '../../../src/adapters/throttle/create-login-throttle.ts';
import { NoLoginThrottle } from '../../../src/adapters/throttle/no-login-throttle.ts';
import { RateLimiterLoginThrottle } from '../../../src/adapters/throttle/rate-limiter-login-throttle.ts';

const SECRET = 'test-secret-of-at-least-32-characters-0123456789';

const configured = (throttle: Record<string, unknown>, database: Record<string, unknown> = {}) =>
  configSchema.parse({ auth: { throttle }, database });

const POSTGRES = { url: 'postgresql://postgres@127.0.0.1:1/none' };

test('unset, the store is memory on the embedded database', () => {
  const config = configured({});
  assert.is(loginThrottleStore(config.auth.throttle, config.database), 'memory');
});

test('unset, the store is PostgreSQL on a PostgreSQL server, so every instance shares the budgets', () => {
  const config = configured({}, POSTGRES);
  assert.is(loginThrottleStore(config.auth.throttle, config.database), 'postgres');
});

test('an explicit store wins over the default', () => {
  const memory = configured({ store: 'memory' }, POSTGRES);
  assert.is(loginThrottleStore(memory.auth.throttle, memory.database), 'memory');
  const postgres = configured({ store: 'postgres' });
  assert.is(loginThrottleStore(postgres.auth.throttle, postgres.database), 'postgres');
});

test('the default on the embedded database is rate-limiter-flexible in memory', () => {
  const config = configured({});
  assert.instance(
    createLoginThrottle(config.auth.throttle, config.database, SECRET),
    RateLimiterLoginThrottle,
  );
});

test('disabled, every attempt is admitted and nothing counted', async () => {
  const config = configured({ enabled: false });
  const throttle = createLoginThrottle(config.auth.throttle, config.database, SECRET);
  assert.instance(throttle, NoLoginThrottle);
  for (let attempt = 0; attempt < 20; attempt++) {
    assert.is(await throttle.admit({ email: 'ada@example.com', clientAddress: '192.0.2.1' }), 0);
  }
});

test('the PostgreSQL store without a database URL is refused at start', () => {
  const config = configured({ store: 'postgres' });
  assert.throws(
    () => createLoginThrottle(config.auth.throttle, config.database, SECRET),
    /auth\.throttle\.store: postgres needs database\.url/,
  );
});

test('with a database URL the PostgreSQL store is chosen', async () => {
  const config = configured({ store: 'postgres' }, POSTGRES);
  const throttle = createLoginThrottle(config.auth.throttle, config.database, SECRET);
  assert.instance(throttle, RateLimiterLoginThrottle);
  await (throttle as RateLimiterLoginThrottle).close();
});

test.run();
