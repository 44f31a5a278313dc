import { setTimeout as sleep } from 'node:timers/promises';
import { LoginKeys } from '../../src/adapters/throttle/login-keys.ts';
import { memoryLoginThrottle } from '../../src/adapters/throttle/memory-login-throttle.ts';
import { postgresLoginThrottle } from '../../src/adapters/throttle/postgres-login-throttle.ts';
import { FakeLoginThrottle } from '../support/fakes/fake-login-throttle.ts';
import { FixedClock } from '../support/fakes/fixed-clock.ts';
import { administer, postgresSkip, testDatabaseUrl } from '../support/postgres-server.ts';
import { loginThrottleContract, type ThrottleTarget } from './login-throttle.contract.ts';

const fake: ThrottleTarget = {
  name: 'the test fake',
  slack: 0,
  async create(budgets) {
    const clock = new FixedClock();
    return {
      throttle: new FakeLoginThrottle(budgets, clock),
      pass: async (ms) => clock.advance(ms),
      close: async () => {},
    };
  },
  dispose: async () => {},
};

const KEYS = new LoginKeys('contract-secret-of-at-least-32-characters');

/**
 * Real stores read the wall clock; sleeps and round trips overrun on a loaded machine, so waits are compared
 * with slack wide enough not to measure speed, narrow enough to tell a window of 1 s from one of 2 s.
 */
const WALL_CLOCK_SLACK = 450;

const memory: ThrottleTarget = {
  name: 'rate-limiter-flexible memory',
  slack: WALL_CLOCK_SLACK,
  async create(budgets) {
    const throttle = memoryLoginThrottle(budgets, KEYS);
    return { throttle, pass: async (ms) => void (await sleep(ms)), close: () => throttle.close() };
  },
  dispose: async () => {},
};

/** A database of its own, dropped after; each throttle gets a fresh table in it. */
function postgres(): ThrottleTarget {
  const database = `datagate_throttle_test_${process.pid}_${Date.now().toString(36)}`;
  let created: Promise<void> | undefined;
  let tables = 0;
  return {
    name: 'rate-limiter-flexible PostgreSQL',
    skip: postgresSkip,
    slack: WALL_CLOCK_SLACK,
    async create(budgets) {
      created ??= administer(`create database "${database}"`);
      await created;
      const throttle = postgresLoginThrottle(
        budgets,
        KEYS,
        { url: testDatabaseUrl(database), connectTimeout: 5000, queryTimeout: 5000 },
        `login_throttle_${++tables}`,
      );
      return { throttle, pass: async (ms) => void (await sleep(ms)), close: () => throttle.close() };
    },
    async dispose() {
      if (created) await administer(`drop database if exists "${database}" with (force)`);
    },
  };
}

for (const target of [fake, memory, postgres()]) loginThrottleContract(target).run();
