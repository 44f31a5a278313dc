import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimiterLoginThrottle } from '../../src/adapters/throttle/rate-limiter-login-throttle.ts';
import type { LoginThrottle } from '../../src/application/ports/login-throttle.ts';
import { TYPES } from '../../src/container.ts';
import { assertError } from '../http/scenario.ts';
import { administer, postgresSkip, testDatabaseUrl } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { type SeededUser, startTestApp, type TestApp } from '../support/test-app.ts';

/*
 * Finding 4 of issue 12: 100 failed logins from one address (an office NAT, or every client behind a
 * proxy when `trustProxy` is off, as here: every request comes from 127.0.0.1) spent the address budget,
 * and every user's right password then answered 429 for 15 minutes. With the shipped budgets, a user who
 * logged in from that address before keeps logging in; everyone else is refused as before.
 */

const FLOOD = 150;

function attempt(app: TestApp, user: Pick<SeededUser, 'email' | 'password'>) {
  return app.request('POST', '/auth/login', { body: { email: user.email, password: user.password } });
}

/** FLOOD failures over as many unknown e-mails: 401 until the address budget is spent, 429 after. */
async function flood(app: TestApp) {
  let refused = 0;
  for (let guess = 0; guess < FLOOD; guess++) {
    const response = await attempt(app, { email: `sprayed-${guess}@example.com`, password: 'guess' });
    assert.ok([401, 429].includes(response.status), `guess ${guess + 1}: ${response.status}`);
    if (response.status === 429) refused++;
  }
  assert.is(refused, FLOOD - 100, 'the address budget (100) stopped the flood');
}

async function assertRefusedLikeAStranger(app: TestApp, user: Pick<SeededUser, 'email' | 'password'>) {
  assertError(await attempt(app, user), 429, 'TOO_MANY_REQUESTS');
}

type Flooded = { app: TestApp; ada: SeededUser; bob: SeededUser };

/**
 * One app for the three cases, flooded once: Ada logged in from the address before the flood, Bob never
 * did. The last case spends Ada's own budget, so it stays last.
 */
const memory = suite<Flooded>('a flood of failed logins from one address (memory store)');

memory.before(async (context) => {
  context.app = await startTestApp();
  context.ada = await context.app.createUser();
  context.bob = await context.app.createUser();
  await context.app.login(context.ada);
  await flood(context.app);
});
memory.after(({ app }) => app.close());

memory('a user who logged in from the flooded address before still logs in', async ({ app, ada }) => {
  assert.is((await attempt(app, ada)).status, 200);
});

memory(
  'an unknown e-mail and a user who never logged in from there are refused alike',
  async ({ app, bob }) => {
    await assertRefusedLikeAStranger(app, { email: 'nobody@example.com', password: 'guess' });
    await assertRefusedLikeAStranger(app, bob);
  },
);

memory(
  'guesses at a user who logged in from there are still stopped by their own budget',
  async ({ app, ada }) => {
    for (let guess = 0; guess < 5; guess++) {
      assertError(await attempt(app, { ...ada, password: 'wrong' }), 401, 'INVALID_CREDENTIALS');
    }
    assertError(await attempt(app, ada), 429, 'TOO_MANY_REQUESTS');
  },
);

memory.run();

const shared = skippableSuite('a flood of failed logins from one address (PostgreSQL store)', postgresSkip);
const database = `datagate_address_lockout_${process.pid}_${Date.now().toString(36)}`;

shared.before(() => administer(`create database "${database}"`));
shared.after(() => administer(`drop database if exists "${database}" with (force)`));

shared('a login remembered before a restart outlasts a flood on another instance', async () => {
  const env = { LOGIN_THROTTLE_STORE: 'postgres', DATABASE_URL: testDatabaseUrl(database) };
  const ada = { email: 'ada@example.com', password: 'password-123' };
  const before = await startTestApp({ env });
  try {
    await before.createUser(ada);
    await before.login(ada);
  } finally {
    await stop(before);
  }
  const after = await startTestApp({ env });
  try {
    await after.createUser(ada);
    const bob = await after.createUser();
    await flood(after);
    assert.is((await attempt(after, ada)).status, 200);
    await assertRefusedLikeAStranger(after, { email: 'nobody@example.com', password: 'guess' });
    await assertRefusedLikeAStranger(after, bob);
  } finally {
    await stop(after);
  }
});

shared.run();

async function stop(app: TestApp) {
  await app.close();
  const throttle = app.container.get<LoginThrottle>(TYPES.LoginThrottle);
  if (throttle instanceof RateLimiterLoginThrottle) await throttle.close();
}
