import { performance } from 'node:perf_hooks';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppConfig } from '../../src/adapters/config/config-schema.ts';
import { Argon2PasswordHasher } from '../../src/adapters/crypto/argon2-password-hasher.ts';
import { RateLimiterLoginThrottle } from '../../src/adapters/throttle/rate-limiter-login-throttle.ts';
import type { LoginThrottle } from '../../src/application/ports/login-throttle.ts';
import type { PasswordHasher } from '../../src/application/ports/password-hasher.ts';
import { TYPES } from '../../src/container.ts';
import { firstError } from '../http/scenario.ts';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import {
  type SeededUser,
  startTestApp,
  type TestApp,
  type TestResponse,
  withTestApp,
} from '../support/test-app.ts';
import {
  type Arena,
  adminRows,
  assertIntact,
  CARGO,
  CARGO_ROWS,
  closeArena,
  expectError,
  openArena,
} from './attack-kit.ts';

/**
 * Can a stranger learn which e-mail addresses have accounts (or which ids exist)? Every probe pair below
 * must get answers that differ in nothing a client can see. Login throttling is off in the first suite,
 * which fails logins on purpose more often than its budget allows; the spray suite keeps it on.
 */
const NO_THROTTLE = { LOGIN_THROTTLE: 'false' };

type Context = { app: TestApp; admin: string; user: SeededUser; suspended: SeededUser; member: string };

const test = suite<Context>('user enumeration (docs/api.md §2: same message, same timing)');

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

/** Headers that differ between any two requests, whatever was asked: the only ones left out of comparisons. */
const PER_REQUEST_HEADERS = ['date', 'x-request-id'];

/** Everything a client can compare: the status, every other header, and the body byte for byte. */
function visible(response: TestResponse) {
  const headers = [...response.headers.entries()].filter(([name]) => !PER_REQUEST_HEADERS.includes(name));
  return { status: response.status, headers, body: response.text };
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

test('an id that cannot exist is answered as one that does not: the same 404, naming what was asked', async ({
  app,
  admin,
}) => {
  for (const [collection, message] of [
    ['users', 'User not found.'],
    ['roles', 'Role not found.'],
    ['permissions', 'Permission not found.'],
    ['files', 'Item not found.'],
    ['assets', 'Item not found.'],
  ]) {
    const malformed = await app.request('GET', `/${collection}/not-a-uuid`, { token: admin });
    const missing = await app.request('GET', `/${collection}/0190a000-0000-7000-8000-00000000ffff`, {
      token: admin,
    });
    expectError(malformed, 404, 'NOT_FOUND', `${collection}: malformed`);
    assert.is(
      (malformed.body as { errors: Array<{ message: string }> }).errors[0]!.message,
      message,
      collection,
    );
    assert.equal(visible(malformed).body, visible(missing).body, collection);
  }
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

test.run();

// ---------------------------------------------------------------------------------------------
/** Same length as a real key, so not even Content-Length could tell them apart by the echoed id. */
const MISSING_CARGO = '0190a000-0000-7000-8000-00000000dead';

/** Every way to address one item by its key: reads, updates and deletes, one key and batches. */
const ITEM_PROBES: Array<[string, (key: string) => [method: string, path: string, body?: unknown]]> = [
  ['GET one', (key) => ['GET', `/items/cargos/${key}`]],
  ['GET one with fields', (key) => ['GET', `/items/cargos/${key}?fields=id,description`]],
  ['HEAD one', (key) => ['HEAD', `/items/cargos/${key}`]],
  ['PATCH one', (key) => ['PATCH', `/items/cargos/${key}`, { description: 'probe' }]],
  ['PATCH { keys }', (key) => ['PATCH', '/items/cargos', { keys: [key], data: { description: 'probe' } }]],
  ['PATCH an array of items', (key) => ['PATCH', '/items/cargos', [{ id: key, description: 'probe' }]]],
  ['DELETE one', (key) => ['DELETE', `/items/cargos/${key}`]],
  ['DELETE an array of keys', (key) => ['DELETE', '/items/cargos', [key]]],
  ['DELETE { keys }', (key) => ['DELETE', '/items/cargos', { keys: [key] }]],
];

for (const [target, items] of suitePerBackend<{ arena: Arena }>(
  backends(),
  (backend) => `item id enumeration on ${backend}: a row the caller may not see answers as a missing one`,
)) {
  items.before(async (context) => {
    context.arena = await openArena(target);
  });
  items.after(({ arena }) => closeArena(arena, target));

  for (const [name, probe] of ITEM_PROBES) {
    items(
      `${name}: a hidden id and a missing id get the same 404, byte for byte, and nothing changes`,
      async ({ arena }) => {
        const send = (key: string) => {
          const [method, path, body] = probe(key);
          return arena.app.request(method, path, { token: arena.operator, body });
        };
        // The operator's read permission hides deleted rows: CARGO.archived exists, but not for them.
        const hidden = await send(CARGO.archived);
        const missing = await send(MISSING_CARGO);
        assert.is(hidden.status, 404, hidden.text);
        if (hidden.text) expectError(hidden, 404, 'NOT_FOUND', name);
        assert.equal(visible(hidden), visible(missing));
        await assertIntact(arena, name);
      },
    );
  }

  items.run();
}

for (const [target, keys] of suitePerBackend<{ arena: Arena; keyless: string }>(
  backends(),
  (backend) => `item key probing on ${backend}: a caller who may not read the key cannot name rows by it`,
)) {
  keys.before(async (context) => {
    context.arena = await openArena(target);
    // Reads, updates and deletes the operator's rows, but may not read their key: naming a row by key
    // would filter on it, and a visible row's key answering otherwise than a missing one tells its value.
    const { app, admin } = context.arena;
    const role = await app.createRole({ name: 'Keyless' });
    for (const action of ['read', 'update', 'delete']) {
      const permission = await app.request('POST', '/permissions', {
        token: admin,
        body: {
          role: role.id,
          collection: 'cargos',
          action,
          permissions: { is_deleted: { _eq: false } },
          fields: ['description', 'code'],
        },
      });
      assert.is(permission.status, 200, permission.text);
    }
    context.keyless = (await app.login(await app.createUser({ role: role.id }))).access_token;
  });
  keys.after(({ arena }) => closeArena(arena, target));

  for (const [name, probe] of ITEM_PROBES) {
    keys(
      `${name}: a visible row's key and a missing key get the same 403 naming the key`,
      async ({ arena, keyless }) => {
        const send = (key: string) => {
          const [method, path, body] = probe(key);
          return arena.app.request(method, path, { token: keyless, body });
        };
        const visibleRow = await send(CARGO.fish);
        const missing = await send(MISSING_CARGO);
        assert.is(visibleRow.status, 403, visibleRow.text);
        if (visibleRow.text) {
          expectError(visibleRow, 403, 'FORBIDDEN', name);
          assert.is(firstError(visibleRow).extensions.field, 'id');
        }
        assert.equal(visible(visibleRow), visible(missing));
        assert.equal(await adminRows(arena), CARGO_ROWS, `cargos unchanged after ${name}`);
      },
    );
  }

  keys(
    'a subscription, which tells deletions by key, is refused naming the key',
    async ({ arena, keyless }) => {
      // Raw fetch: were the stream served, its body would never end.
      const controller = new AbortController();
      const stream = await fetch(`${arena.app.url}/items/cargos/events`, {
        headers: { authorization: `Bearer ${keyless}` },
        signal: controller.signal,
      });
      const text = stream.status === 200 ? '' : await stream.text();
      controller.abort();
      assert.is(stream.status, 403, text);
      assert.equal(JSON.parse(text).errors[0].extensions, { field: 'id', code: 'FORBIDDEN' });
    },
  );

  keys('the rows stay readable, and writable by query, without their key', async ({ arena, keyless }) => {
    const listed = await arena.app.request('GET', '/items/cargos?sort=code', { token: keyless });
    assert.equal(listed.body, [
      { description: 'Bananas 100%_ripe', code: 'B-2' },
      { description: 'Frozen fish', code: 'F-1' },
    ]);
    const updated = await arena.app.request('PATCH', '/items/cargos', {
      token: keyless,
      body: { query: { filter: { code: { _eq: 'F-1' } } }, data: { description: 'Frozen fish' } },
    });
    assert.equal(updated.body, [{ description: 'Frozen fish', code: 'F-1' }]);
    assert.equal(await adminRows(arena), CARGO_ROWS);
  });

  keys.run();
}

// ---------------------------------------------------------------------------------------------
const spray = suite(
  'an e-mail spray from one address, against the login throttle the app is configured with',
);

spray(
  'unknown e-mails and known ones with a wrong password answer alike until the address budget stops both',
  () =>
    withTestApp(async (app) => {
      const throttle = app.container.get<LoginThrottle>(TYPES.LoginThrottle);
      assert.instance(throttle, RateLimiterLoginThrottle, 'the production throttle, not a test fake');
      const budget = app.container.get<AppConfig>(TYPES.Config).auth.throttle.address.failures;
      assert.is(budget, 100, 'the shipped default of auth.throttle.address.failures');

      // One known account per known probe, so that no e-mail comes near its own budget (5 per address).
      const known = await Promise.all(
        Array.from({ length: budget / 2 }, (_, n) => app.createUser({ email: `known-${n}@example.com` })),
      );
      const unknown = known.map((_, n) => `unknown-${n}@example.com`);
      const reference = visible(await login(app, 'reference@example.com', 'wrong-password'));
      expectError(await login(app, 'reference-2@example.com', 'wrong-password'), 401, 'INVALID_CREDENTIALS');
      for (let n = 2; n < budget; n++) {
        const half = Math.floor(n / 2);
        const email = n % 2 === 0 ? known[half]!.email : unknown[half]!;
        assert.equal(
          visible(await login(app, email, 'wrong-password')),
          reference,
          `attempt ${n + 1}: ${email}`,
        );
      }

      // The address has spent its budget: every e-mail is refused before its password is looked at, the
      // right password of a known account included, and the refusals are alike too.
      const refusals = [
        await login(app, 'unknown-next@example.com', 'wrong-password'),
        await login(app, known[0]!.email, 'wrong-password'),
        await login(app, known[1]!.email, known[1]!.password),
      ];
      for (const refused of refusals) {
        expectError(refused, 429, 'TOO_MANY_REQUESTS');
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
        // The wait in words too, the same for every e-mail: the window is the address's, begun by this test.
        const { errors } = refused.body as { errors: Array<{ message: string }> };
        assert.is(errors[0]?.message, 'Too many attempts. Try again in 15 minutes.');
      }
      // Retry-After counts down in whole seconds, so a second boundary may fall between two refusals.
      const comparable = (response: TestResponse) => {
        const { headers, body, ...rest } = visible(response);
        return {
          ...rest,
          headers: headers.filter(([name]) => name !== 'retry-after'),
          body: body.replace(/"retryAfter":\d+/, '"retryAfter":N'),
        };
      };
      for (const refused of refusals.slice(1)) assert.equal(comparable(refused), comparable(refusals[0]!));
    }),
);

spray.run();

// ---------------------------------------------------------------------------------------------
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const timing = suite('user enumeration by timing (real argon2 at production cost)');

const ROUNDS = 15;

timing('login with an unknown e-mail costs a password verification, as a known e-mail does', () =>
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
      // Without the dummy verification an unknown e-mail answers ~10× faster (no argon2 at all); the bound
      // is loose so that a loaded machine's noise (medians measured 1.01–1.28 apart) never fails it.
      assert.ok(
        ratio <= 2,
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
