import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryRecentLogins } from '../../../src/adapters/throttle/memory-recent-logins.ts';

const DAY = 24 * 3_600_000;

/** A month: longer than a Node.js timer can wait, which is why the store keeps no timer per key. */
const MONTH = 30 * DAY;

function recentLogins(capacity = 10) {
  let now = 0;
  const store = new MemoryRecentLogins(MONTH, capacity, () => now);
  const pass = (ms: number) => {
    now += ms;
  };
  return { store, pass };
}

test('a login is recent for the whole window, however long, and not after', async () => {
  const { store, pass } = recentLogins();
  await store.remember('ada');
  pass(MONTH - 1);
  assert.ok(await store.has('ada'));
  pass(1);
  assert.not.ok(await store.has('ada'));
});

test('remembering again starts the window again', async () => {
  const { store, pass } = recentLogins();
  await store.remember('ada');
  pass(MONTH - DAY);
  await store.remember('ada');
  pass(MONTH - DAY);
  assert.ok(await store.has('ada'));
});

test('past its capacity the store forgets the login remembered longest ago', async () => {
  const { store } = recentLogins(3);
  for (const key of ['ada', 'bob', 'carol']) await store.remember(key);
  await store.remember('ada');
  await store.remember('dave');
  assert.not.ok(await store.has('bob'), 'the oldest is gone');
  for (const key of ['ada', 'carol', 'dave']) assert.ok(await store.has(key), key);
});

test('however many logins, it holds no more than its capacity', async () => {
  const { store } = recentLogins(100);
  for (let login = 0; login < 10_000; login++) await store.remember(`user-${login}`);
  let kept = 0;
  for (let login = 0; login < 10_000; login++) if (await store.has(`user-${login}`)) kept++;
  assert.is(kept, 100);
});

test.run();
