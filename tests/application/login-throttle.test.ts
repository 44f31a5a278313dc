import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError, tooManyRequests } from '../../src/domain/errors.ts';
import { authFixture, DEFAULT_LOGIN_BUDGETS, rejectsWith } from '../support/auth-fixture.ts';

type Fixture = ReturnType<typeof authFixture>;
type Attempt = Parameters<Fixture['login']['execute']>[0];

const MINUTE = 60_000;
const ADA = { email: 'ada@example.com', password: 'correct horse' };
const WRONG: Attempt = { email: 'ada@example.com', password: 'wrong' };

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal, but it succeeded');
}

async function failTimes(f: Fixture, times: number, command = WRONG) {
  for (let attempt = 0; attempt < times; attempt++) {
    await rejectsWith(f.login.execute(command), 'INVALID_CREDENTIALS');
  }
}

test('after five failures even the right password is refused with TOO_MANY_REQUESTS', async () => {
  const f = authFixture();
  await f.user();
  await failTimes(f, 5);
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
});

test('a refused attempt costs no password verification', async () => {
  const f = authFixture();
  await f.user();
  await failTimes(f, 5);
  const verifications = f.hasher.verified.length;
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
  assert.is(f.hasher.verified.length, verifications);
});

test('the refusal says how long is left of the window opened by the first failure', async () => {
  const f = authFixture();
  await f.user();
  await failTimes(f, 1);
  f.clock.advance(5 * MINUTE);
  await failTimes(f, 4);
  const error = await refusal(f.login.execute(ADA));
  assert.is(error.code, 'TOO_MANY_REQUESTS');
  assert.is(error.extensions.retryAfter, 10 * 60);
  assert.is(error.message, 'Too many attempts. Try again in 10 minutes.');
});

test('the wait in the message is the wait of Retry-After in words, never shorter', () => {
  const table: Array<[number, string]> = [
    [1, '1 second'],
    [59, '59 seconds'],
    [60, '1 minute'],
    [61, '2 minutes'],
    [900, '15 minutes'],
    [7199, '120 minutes'],
    [7200, '2 hours'],
    [7201, '3 hours'],
  ];
  for (const [seconds, words] of table) {
    const error = tooManyRequests(seconds);
    assert.is(error.extensions.retryAfter, seconds);
    assert.is(error.message, `Too many attempts. Try again in ${words}.`, String(seconds));
  }
  assert.is(tooManyRequests(0.2).message, 'Too many attempts. Try again in 1 second.', 'never "0 seconds"');
});

test("an unknown e-mail's spent budget answers as a known one's: the same code, wait and words", async () => {
  const f = authFixture();
  await f.user();
  const nobody: Attempt = { email: 'nobody@example.com', password: 'wrong' };
  await failTimes(f, 1);
  await failTimes(f, 1, nobody);
  f.clock.advance(3 * MINUTE + 500);
  await failTimes(f, 4);
  await failTimes(f, 4, nobody);
  const known = await refusal(f.login.execute(WRONG));
  const unknown = await refusal(f.login.execute(nobody));
  assert.is(known.code, 'TOO_MANY_REQUESTS');
  assert.equal(
    { code: unknown.code, message: unknown.message, extensions: unknown.extensions },
    { code: known.code, message: known.message, extensions: known.extensions },
  );
  assert.is(known.message, 'Too many attempts. Try again in 12 minutes.');
});

test('once the window has passed the right password works again', async () => {
  const f = authFixture();
  await f.user();
  await failTimes(f, 5);
  f.clock.advance(15 * MINUTE - 1);
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
  f.clock.advance(1);
  await f.login.execute(ADA);
});

test('a successful login forgets the failures before it', async () => {
  const f = authFixture();
  await f.user();
  await failTimes(f, 4);
  await f.login.execute(ADA);
  await failTimes(f, 5);
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
});

test('another user at the same address logs in while one is throttled', async () => {
  const f = authFixture();
  await f.user();
  await f.user({ email: 'bob@example.com' });
  await failTimes(f, 5);
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
  await f.login.execute({ email: 'bob@example.com', password: 'correct horse' });
});

test('failures at another address do not lock the user out at theirs', async () => {
  const f = authFixture();
  await f.user();
  await failTimes(f, 5, { ...WRONG, clientAddress: '203.0.113.9' });
  await f.login.execute(ADA);
});

test('the address budget stops a spray of guesses over many e-mails', async () => {
  const window = 15 * MINUTE;
  const f = authFixture(
    {},
    { ...DEFAULT_LOGIN_BUDGETS, emailAndAddress: { failures: 5, window }, address: { failures: 3, window } },
  );
  await f.user();
  for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
    await rejectsWith(f.login.execute({ email, password: 'guess' }), 'INVALID_CREDENTIALS');
  }
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
  await f.login.execute({ ...ADA, clientAddress: '192.0.2.99' });
});

test('unknown and malformed e-mails are throttled like known ones', async () => {
  const f = authFixture();
  for (const email of ['nobody@example.com', 'not an e-mail']) {
    await failTimes(f, 5, { email, password: 'guess' });
    await rejectsWith(f.login.execute({ email, password: 'guess' }), 'TOO_MANY_REQUESTS');
  }
});

test('the count is per e-mail however it is written', async () => {
  const f = authFixture();
  await f.user();
  await failTimes(f, 3);
  await failTimes(f, 2, { email: '  ADA@Example.COM ', password: 'wrong' });
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
});

test("a suspended user's right password is no failure", async () => {
  const f = authFixture();
  await f.user({ status: 'suspended' });
  await failTimes(f, 4);
  for (let attempt = 0; attempt < 10; attempt++) {
    await rejectsWith(f.login.execute(ADA), 'USER_SUSPENDED');
  }
  await failTimes(f, 5);
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
});

/** Fails with `times` unknown e-mails from the fixture's address, each a guess the address budget counts. */
async function spray(f: Fixture, times: number) {
  for (let guess = 0; guess < times; guess++) {
    const email = `sprayed-${guess}@example.com`;
    await refusal(f.login.execute({ email, password: 'guess' }));
  }
}

const SMALL_ADDRESS_BUDGET = {
  ...DEFAULT_LOGIN_BUDGETS,
  address: { failures: 3, window: 15 * MINUTE },
};

test('a user who logged in from an address is not locked out by a flood of failures from it', async () => {
  const f = authFixture();
  await f.user();
  await f.login.execute(ADA);
  await spray(f, 150);
  await rejectsWith(f.login.execute({ email: 'nobody@example.com', password: 'guess' }), 'TOO_MANY_REQUESTS');
  await f.login.execute(ADA);
});

test('a known user who never logged in from that address is refused like an unknown e-mail', async () => {
  const f = authFixture({}, SMALL_ADDRESS_BUDGET);
  await f.user();
  await f.user({ email: 'bob@example.com' });
  await f.login.execute({ ...ADA, clientAddress: '198.51.100.7' });
  await spray(f, 3);
  const refusals = [
    await refusal(f.login.execute(ADA)),
    await refusal(f.login.execute({ email: 'bob@example.com', password: 'correct horse' })),
    await refusal(f.login.execute({ email: 'nobody@example.com', password: 'guess' })),
  ];
  for (const refused of refusals) {
    assert.is(refused.code, 'TOO_MANY_REQUESTS');
    assert.equal(refused.extensions, refusals[0]?.extensions);
    assert.is(refused.message, refusals[0]?.message);
  }
});

test('a failure at a known e-mail takes the same point from the address as one at an unknown e-mail', async () => {
  for (const guessed of ['ada@example.com', 'nobody@example.com']) {
    const f = authFixture({}, SMALL_ADDRESS_BUDGET);
    await f.user();
    await failTimes(f, 3, { email: guessed, password: 'wrong' });
    await rejectsWith(
      f.login.execute({ email: 'carol@example.com', password: 'guess' }),
      'TOO_MANY_REQUESTS',
    );
  }
});

test('the e-mail of a recent login keeps its own budget at a spent address', async () => {
  const f = authFixture();
  await f.user();
  await f.login.execute(ADA);
  await spray(f, 150);
  await failTimes(f, 5);
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
});

test('a login from an address is remembered for auth.throttle.rememberLogin after the last one', async () => {
  const f = authFixture();
  await f.user();
  await f.login.execute(ADA);
  f.clock.advance(DEFAULT_LOGIN_BUDGETS.rememberLogin - MINUTE);
  await f.login.execute(ADA);
  f.clock.advance(DEFAULT_LOGIN_BUDGETS.rememberLogin - MINUTE);
  await spray(f, 150);
  // A failure, not a login: a success would remember the login again.
  await rejectsWith(f.login.execute(WRONG), 'INVALID_CREDENTIALS');
  f.clock.advance(MINUTE);
  await rejectsWith(f.login.execute(ADA), 'TOO_MANY_REQUESTS');
});

test("a suspended user's right password makes the login recent: it proves the password", async () => {
  const f = authFixture();
  await f.user({ status: 'suspended' });
  await rejectsWith(f.login.execute(ADA), 'USER_SUSPENDED');
  await spray(f, 150);
  await rejectsWith(f.login.execute(ADA), 'USER_SUSPENDED');
});

test.run();
