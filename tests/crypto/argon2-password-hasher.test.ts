import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  Argon2PasswordHasher,
  concurrencyLimiter,
  TEST_ARGON2_COST,
} from '../../src/adapters/crypto/argon2-password-hasher.ts';
import { RecordingMetrics } from '../support/fakes/recording-metrics.ts';

const hasher = () => new Argon2PasswordHasher(TEST_ARGON2_COST);

const test = suite('Argon2PasswordHasher');

test('the hash is an argon2id PHC string carrying its cost parameters', async () => {
  const hash = await hasher().hash('correct horse battery staple');
  assert.match(hash, /^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
});

test('hashing the same password twice gives different salts', async () => {
  const passwords = hasher();
  assert.is.not(await passwords.hash('same'), await passwords.hash('same'));
});

test('the right password verifies', async () => {
  const passwords = hasher();
  assert.ok(
    await passwords.verify(
      await passwords.hash('correct horse battery staple'),
      'correct horse battery staple',
    ),
  );
});

test('a wrong password is false', async () => {
  const passwords = hasher();
  assert.not.ok(
    await passwords.verify(
      await passwords.hash('correct horse battery staple'),
      'Correct horse battery staple',
    ),
  );
});

test('a hash made with other cost parameters still verifies', async () => {
  const hash = await new Argon2PasswordHasher({ ...TEST_ARGON2_COST, timeCost: 2 }).hash('pw');
  assert.ok(await hasher().verify(hash, 'pw'));
});

test('a malformed hash is false, never an exception', async () => {
  const passwords = hasher();
  for (const malformed of [
    '',
    'not-a-hash',
    '$argon2id$v=19$m=1024,t=1,p=1$',
    '$argon2id$v=19$m=0,t=0,p=0$AAAA$AAAA',
    'fake$pw',
  ]) {
    assert.is(await passwords.verify(malformed, 'pw'), false, malformed);
  }
});

test('verify(null) (no such user) is false, also for the dummy password itself', async () => {
  const passwords = hasher();
  assert.is(await passwords.verify(null, 'anything'), false);
  assert.is(await passwords.verify(null, 'datagate-timing-equaliser'), false);
});

test('verify(null) does the work of a real verification', async () => {
  // Relative, not absolute, so a slow CI box does not flake: a costlier preset must cost more for null too.
  const cheap = new Argon2PasswordHasher(TEST_ARGON2_COST);
  const costly = new Argon2PasswordHasher({ ...TEST_ARGON2_COST, memoryCost: 32_768 });
  await Promise.all([cheap.verify(null, 'warm-up'), costly.verify(null, 'warm-up')]);
  const time = async (passwords: Argon2PasswordHasher) => {
    const start = performance.now();
    for (let i = 0; i < 3; i++) await passwords.verify(null, 'pw');
    return performance.now() - start;
  };
  assert.ok((await time(costly)) > (await time(cheap)) * 2);
});

test('the hasher refuses a concurrency below 1', () => {
  assert.throws(() => new Argon2PasswordHasher({ concurrency: 0 }), /concurrency/);
});

test.run();

const limiter = suite('concurrencyLimiter');

/** A task that runs until the test releases it, recording how many ran at once. */
function probe() {
  const state = { running: 0, peak: 0, started: [] as number[], release: [] as Array<() => void> };
  const task = (id: number) => () =>
    new Promise<number>((resolve) => {
      state.running++;
      state.peak = Math.max(state.peak, state.running);
      state.started.push(id);
      state.release.push(() => {
        state.running--;
        resolve(id);
      });
    });
  return { state, task };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

limiter('runs at most `limit` tasks at once and starts the rest in arrival order', async () => {
  const limited = concurrencyLimiter(2);
  const { state, task } = probe();
  const results = Promise.all([1, 2, 3, 4, 5].map((id) => limited(task(id))));
  await settle();
  assert.equal(state.started, [1, 2]);
  while (state.release.length > 0) {
    state.release.shift()!();
    await settle();
    assert.ok(state.peak <= 2);
  }
  assert.equal(await results, [1, 2, 3, 4, 5]);
  assert.equal(state.started, [1, 2, 3, 4, 5]);
  assert.is(state.peak, 2);
});

limiter('a newcomer does not overtake a queued task when a slot frees up', async () => {
  const limited = concurrencyLimiter(1);
  const { state, task } = probe();
  const first = limited(task(1));
  const queued = limited(task(2));
  await settle();
  state.release.shift()!();
  // Arrives in the microtask right after the limiter's own clean-up of task 1, i.e. while the slot is
  // being handed to task 2: the moment a count-then-wake semaphore lets a third task in.
  let newcomer: Promise<number> | undefined;
  queueMicrotask(() => {
    newcomer = limited(task(3));
  });
  await settle();
  assert.equal(state.started, [1, 2]);
  assert.is(state.peak, 1);
  state.release.shift()!();
  await settle();
  state.release.shift()!();
  assert.equal(await Promise.all([first, queued, newcomer]), [1, 2, 3]);
});

limiter('a failing task frees its slot', async () => {
  const limited = concurrencyLimiter(1);
  await limited(() => Promise.reject(new Error('boom'))).catch(() => undefined);
  assert.is(await limited(async () => 'next'), 'next');
});

limiter("tells its meter the length of the line and each task's wait for a slot", async () => {
  const metrics = new RecordingMetrics();
  const limited = concurrencyLimiter(1, metrics.passwordHashes);
  const { state, task } = probe();
  const results = Promise.all([1, 2, 3].map((id) => limited(task(id))));
  await settle();
  assert.equal(metrics.hashQueueLengths, [1, 2]);
  assert.is(metrics.hashWaits.length, 1, 'the first task started at once');
  state.release.shift()!();
  await settle();
  state.release.shift()!();
  await settle();
  state.release.shift()!();
  await results;
  assert.equal(metrics.hashQueueLengths, [1, 2, 1, 0]);
  assert.is(metrics.hashWaits.length, 3);
  assert.ok(metrics.hashWaits.every((seconds) => seconds >= 0));
});

limiter.run();
