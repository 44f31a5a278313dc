import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { FixedClock } from '../../src/adapters/clock/fixed-clock.ts';
import { InMemoryLoginThrottle } from '../../src/adapters/throttle/in-memory-login-throttle.ts';
import { memoryLoginThrottle } from '../../src/adapters/throttle/memory-login-throttle.ts';
import { postgresLoginThrottle } from '../../src/adapters/throttle/postgres-login-throttle.ts';
import { loginThrottleContract, type ThrottleTarget } from './login-throttle.contract.ts';

const fake: ThrottleTarget = {
  name: 'the in-memory fake',
  slack: 0,
  async create(budgets) {
    const clock = new FixedClock();
    return {
      throttle: new InMemoryLoginThrottle(budgets, clock),
      pass: async (ms) => clock.advance(ms),
      close: async () => {},
    };
  },
  dispose: async () => {},
};

/** Real stores read the wall clock; sleeps can overrun, so waits are compared with some slack. */
const WALL_CLOCK_SLACK = 200;

const memory: ThrottleTarget = {
  name: 'rate-limiter-flexible memory',
  slack: WALL_CLOCK_SLACK,
  async create(budgets) {
    const throttle = memoryLoginThrottle(budgets);
    return { throttle, pass: async (ms) => void (await sleep(ms)), close: () => throttle.close() };
  },
  dispose: async () => {},
};

/** A database of its own, dropped after; each throttle gets a fresh table in it. */
function postgres(adminUrl: string): ThrottleTarget {
  const database = `datagate_throttle_test_${process.pid}_${Date.now().toString(36)}`;
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  let created: Promise<void> | undefined;
  let tables = 0;
  return {
    name: 'rate-limiter-flexible PostgreSQL',
    slack: WALL_CLOCK_SLACK,
    async create(budgets) {
      created ??= administer(adminUrl, `create database "${database}"`);
      await created;
      const throttle = postgresLoginThrottle(
        budgets,
        { url: url.toString(), connectTimeout: 5000, queryTimeout: 5000 },
        `login_throttle_${++tables}`,
      );
      return { throttle, pass: async (ms) => void (await sleep(ms)), close: () => throttle.close() };
    },
    async dispose() {
      if (created) await administer(adminUrl, `drop database if exists "${database}" with (force)`);
    },
  };
}

async function administer(url: string, statement: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const targets = [fake, memory];
if (process.env.TEST_DATABASE_URL) targets.push(postgres(process.env.TEST_DATABASE_URL));
for (const target of targets) loginThrottleContract(target).run();
