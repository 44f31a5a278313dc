import { performance } from 'node:perf_hooks';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Argon2PasswordHasher } from '../../src/adapters/crypto/argon2-password-hasher.ts';
import type { PasswordHasher } from '../../src/application/ports/password-hasher.ts';
import { TYPES } from '../../src/container.ts';
import {
  type SeededUser,
  startTestApp,
  type TestApp,
  type TestResponse,
  withTestApp,
} from '../support/test-app.ts';
import { expectError } from './attack-kit.ts';

/**
 * Can a stranger learn which e-mail addresses have accounts (or which ids exist)? Every probe pair below
 * must get answers that differ in nothing a client can see. Login throttling is off: these tests fail
 * logins on purpose, more often than its budget allows.
 */
const NO_THROTTLE = { LOGIN_THROTTLE: 'false' };

type Context = { app: TestApp; admin: string; user: SeededUser; suspended: SeededUser; member: string };

const test = suite<Context>('user enumeration (API.md §2: same message, same timing)');

test.before(async (context) => {
  context.app = await startTestApp({ env: NO_THROTTLE });
  context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  context.user = await context.app.createUser({ email: 'known@example.com' });
  context.suspended = await context.app.createUser({ email: 'suspended@example.com', status: 'suspended' });
  context.member = (await context.app.login(await context.app.createUser())).access_token;
});
test.after(({ app }) => app.close());

const login = (app: TestApp, email: string, password: string) =>
  app.request('POST', '/auth/login', { body: { email, password } });

/** Everything a client can compare, minus what differs on every request anyway. */
function visible(response: TestResponse) {
  const headers = [...response.headers.entries()].filter(
    ([name]) => !['date', 'x-request-id', 'content-length'].includes(name),
  );
  return { status: response.status, headers, body: response.body, length: response.text.length };
}

test('login with an unknown e-mail and with a wrong password: same status, code, message and headers', async ({
  app,
  user,
}) => {
  const unknown = await login(app, 'nobody@example.com', 'wrong-password');
  const wrong = await login(app, user.email, 'wrong-password');
  expectError(unknown, 401, 'INVALID_CREDENTIALS', 'unknown e-mail');
  assert.equal(visible(unknown), visible(wrong));
});

test('login as a suspended user with a wrong password → INVALID_CREDENTIALS like anyone (suspension is no oracle)', async ({
  app,
  suspended,
}) => {
  const unknown = await login(app, 'nobody@example.com', 'wrong-password');
  const wrong = await login(app, suspended.email, 'wrong-password');
  assert.equal(visible(wrong), visible(unknown));
  // Only the right password learns about the suspension.
  expectError(await login(app, suspended.email, suspended.password), 401, 'USER_SUSPENDED');
});

test('login with variants of a known e-mail (case, spaces, malformed address): the same INVALID_CREDENTIALS', async ({
  app,
  user,
}) => {
  const reference = visible(await login(app, 'nobody@example.com', 'wrong-password'));
  for (const email of [' KNOWN@example.com ', 'Known@Example.COM', 'known@', 'known', '', '@example.com']) {
    assert.equal(visible(await login(app, email, 'wrong-password')), reference, JSON.stringify(email));
  }
  assert.equal(visible(await login(app, user.email, '')), reference, 'empty password');
});

test('probing user ids as a non-admin: an existing and a missing id get the same 403', async ({
  app,
  member,
  user,
}) => {
  const existing = await app.request('GET', `/users/${user.id}`, { token: member });
  const missing = await app.request('GET', '/users/0190a000-0000-7000-8000-00000000dead', { token: member });
  expectError(existing, 403, 'FORBIDDEN');
  assert.equal(visible(existing), visible(missing));
  const anonymous = await app.request('GET', `/users/${user.id}`);
  const anonymousMissing = await app.request('GET', '/users/0190a000-0000-7000-8000-00000000dead');
  assert.equal(visible(anonymous), visible(anonymousMissing));
});

test('probing e-mails through user creation as a non-admin: taken and free addresses get the same 403', async ({
  app,
  member,
  user,
}) => {
  const body = (email: string) => ({ email, password: 'password-123', role: null });
  const taken = await app.request('POST', '/users', { token: member, body: body(user.email) });
  const free = await app.request('POST', '/users', { token: member, body: body('free@example.com') });
  expectError(taken, 403, 'FORBIDDEN');
  assert.equal(visible(taken), visible(free));
});

test('probing collection names as a non-admin: a real table and a missing one get the same 403', async ({
  app,
  admin,
  member,
}) => {
  const created = await app.request('POST', '/collections', {
    token: admin,
    body: {
      collection: 'secrets',
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
    },
  });
  assert.is(created.status, 200, created.text);
  for (const path of ['/items/secrets', '/items/secrets/1']) {
    const real = await app.request('GET', path, { token: member });
    const missing = await app.request('GET', path.replace('secrets', 'nothing'), { token: member });
    expectError(real, 403, 'FORBIDDEN', path);
    assert.equal(visible(real), visible(missing), path);
  }
  // System tables answer as missing ones, to the admin too (the message names what was asked for).
  expectError(
    await app.request('GET', '/items/datagate_users', { token: admin }),
    404,
    'COLLECTION_NOT_FOUND',
  );
});

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

test.run();

// ---------------------------------------------------------------------------------------------
const timing = suite('user enumeration by timing (real argon2 at production cost)');

const ROUNDS = 15;

timing('login with an unknown e-mail vs a known e-mail and wrong password: medians within 20 %', () =>
  withTestApp(
    async (app) => {
      const user = await app.createUser({ email: 'timed@example.com', password: 'the-right-password' });
      const time = async (email: string) => {
        const started = performance.now();
        const response = await login(app, email, 'a-wrong-password');
        const elapsed = performance.now() - started;
        assert.is(response.status, 401);
        return elapsed;
      };
      // Warm-up: the first unknown-e-mail login hashes the dummy once; JIT and sockets warm up too.
      for (let round = 0; round < 2; round++) {
        await time('warm-up@example.com');
        await time(user.email);
      }
      const unknown: number[] = [];
      const known: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Interleaved, and the order alternates, so drift on a shared machine hits both sides alike.
        const first = round % 2 === 0;
        if (first) unknown.push(await time(`unknown-${round}@example.com`));
        known.push(await time(user.email));
        if (!first) unknown.push(await time(`unknown-${round}@example.com`));
      }
      const [a, b] = [median(unknown), median(known)];
      const ratio = Math.max(a, b) / Math.min(a, b);
      if (process.env.SHOW_TIMINGS) console.log({ unknown: a, known: b, ratio });
      assert.ok(
        ratio <= 1.2,
        `median unknown e-mail ${a.toFixed(1)} ms vs known e-mail ${b.toFixed(1)} ms (ratio ${ratio.toFixed(2)})`,
      );
      // The hash really is the production one: far slower than the cheap test preset.
      assert.ok(b > 5, `a wrong-password login took ${b.toFixed(1)} ms: is argon2 at production cost?`);
    },
    {
      env: NO_THROTTLE,
      rebind: (container) =>
        container.rebind<PasswordHasher>(TYPES.PasswordHasher).toConstantValue(new Argon2PasswordHasher()),
    },
  ),
);

timing.run();
