import { ERRORS } from '@tus/server';
import * as assert from 'uvu/assert';
import { PostgresTusLocker } from '../../../src/adapters/tus/postgres-tus-locker.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { postgresSkip, testDatabaseUrl } from '../../support/postgres-server.ts';
import { skippableSuite } from '../../support/skippable-suite.ts';

type Context = { first: PostgresTusLocker; second: PostgresTusLocker };

/** Two lockers with pools of their own: two instances on one PostgreSQL server. */
const test = skippableSuite<Context>(
  'upload locks across instances (PostgreSQL advisory locks)',
  postgresSkip,
);

const database = () => ({ url: testDatabaseUrl(), connectTimeout: 5000 });

test.before((context) => {
  context.first = new PostgresTusLocker(database(), 30_000);
  context.second = new PostgresTusLocker(database(), 30_000);
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

test('a waiter gives up with the lock timeout error once its acquire timeout has passed', async ({
  first,
}) => {
  const impatient = new PostgresTusLocker(database(), 100);
  const held = first.newLock('upload-e');
  await held.lock(new AbortController().signal, noRelease);
  try {
    await impatient.newLock('upload-e').lock(new AbortController().signal, noRelease);
    assert.unreachable('the waiter acquired a held lock');
  } catch (error) {
    assert.is(error, ERRORS.ERR_LOCK_TIMEOUT);
  } finally {
    await held.unlock();
    await impatient.close();
  }
});

test('a lock that gets no connection of the full pool is SERVICE_BUSY', async () => {
  // The bound is also how long opening a connection may take: short enough to wait out once, long enough that
  // opening the sixteen held ones on a loaded box (CI runs many suites at once) does not fail as unreachable.
  const busy = new PostgresTusLocker({ ...database(), connectTimeout: 1500 }, 30_000);
  // Every connection of the pool (16) held by a lock on an upload of its own.
  const held = Array.from({ length: 16 }, (_, index) => busy.newLock(`upload-busy-${index}`));
  for (const lock of held) await lock.lock(new AbortController().signal, noRelease);
  try {
    await busy.newLock('upload-busy-16').lock(new AbortController().signal, noRelease);
    assert.unreachable('a seventeenth lock got a connection');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'SERVICE_BUSY');
  } finally {
    for (const lock of held) await lock.unlock();
    await busy.close();
  }
});

test('close waits for a held lock to be released, and the pool takes no lock after', async () => {
  const closing = new PostgresTusLocker(database(), 30_000);
  const held = closing.newLock('upload-f');
  await held.lock(new AbortController().signal, noRelease);
  const events: string[] = [];
  const closed = closing.close().then(() => events.push('closed'));
  events.push('unlocking');
  await held.unlock();
  await closed;
  assert.equal(events, ['unlocking', 'closed']);
  try {
    await closing.newLock('upload-g').lock(new AbortController().signal, noRelease);
    assert.unreachable('a closed locker took a lock');
  } catch (error) {
    assert.instance(error, Error);
  }
});

test.run();
