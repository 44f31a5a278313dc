import { ERRORS } from '@tus/server';
import * as assert from 'uvu/assert';
import { PostgresTusLocker } from '../../../src/adapters/tus/postgres-tus-locker.ts';
import { postgresSkip, testDatabaseUrl } from '../../support/postgres-server.ts';
import { skippableSuite } from '../../support/skippable-suite.ts';

type Context = { first: PostgresTusLocker; second: PostgresTusLocker };

/** Two lockers with pools of their own: two instances on one PostgreSQL server. */
const test = skippableSuite<Context>(
  'upload locks across instances (PostgreSQL advisory locks)',
  postgresSkip,
);

test.before((context) => {
  const database = { url: testDatabaseUrl(), connectTimeout: 5000 };
  context.first = new PostgresTusLocker(database);
  context.second = new PostgresTusLocker(database);
});
test.after(async ({ first, second }) => {
  await first.close();
  await second.close();
});

const noRelease = () => {};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a lock held on one instance is waited for on the other, until released', async ({ first, second }) => {
  const held = first.newLock('upload-a');
  await held.lock(new AbortController().signal, noRelease);
  const events: string[] = [];
  const waiting = second.newLock('upload-a');
  const acquired = waiting
    .lock(new AbortController().signal, noRelease)
    .then(() => events.push('second locked'));
  // Several of the waiter's attempts pass while the first holds the lock.
  await pause(500);
  events.push('first unlocks');
  await held.unlock();
  await acquired;
  assert.equal(events, ['first unlocks', 'second locked']);
  await waiting.unlock();
});

test('locks on two uploads do not wait for each other', async ({ first, second }) => {
  const a = first.newLock('upload-b');
  const b = second.newLock('upload-c');
  await a.lock(new AbortController().signal, noRelease);
  await b.lock(new AbortController().signal, noRelease);
  await a.unlock();
  await b.unlock();
});

test('a waiter whose request ends gives up with the lock timeout error', async ({ first, second }) => {
  const held = first.newLock('upload-d');
  await held.lock(new AbortController().signal, noRelease);
  const stop = new AbortController();
  const waiting = second.newLock('upload-d').lock(stop.signal, noRelease);
  stop.abort();
  try {
    await waiting;
    assert.unreachable('the waiter acquired a held lock');
  } catch (error) {
    assert.is(error, ERRORS.ERR_LOCK_TIMEOUT);
  }
  await held.unlock();
  const again = second.newLock('upload-d');
  await again.lock(new AbortController().signal, noRelease);
  await again.unlock();
});

test.run();
