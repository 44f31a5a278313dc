import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LruMap } from '../../src/adapters/lru-map.ts';

function aMap(maxEntries: number, maxAgeMs = Number.POSITIVE_INFINITY) {
  let time = 0;
  const map = new LruMap<string, number | null>({ maxEntries, maxAgeMs, now: () => time });
  return { map, advance: (ms: number) => (time += ms) };
}

test('more distinct keys than the bound leave the size at the bound', () => {
  const { map } = aMap(100);
  for (let i = 0; i < 1000; i++) map.set(`key-${i}`, i);
  assert.is(map.size, 100);
  assert.is(map.get('key-899'), undefined);
  assert.is(map.get('key-999'), 999);
});

test('the least recently used entry goes first: a read keeps an entry', () => {
  const { map } = aMap(2);
  map.set('a', 1);
  map.set('b', 2);
  map.get('a');
  map.set('c', 3);
  assert.is(map.get('a'), 1);
  assert.is(map.get('b'), undefined);
  assert.is(map.get('c'), 3);
});

test('a stored null is a hit, told apart from an absent key', () => {
  const { map } = aMap(2);
  map.set('missing', null);
  assert.is(map.get('missing'), null);
  assert.is(map.get('never-set'), undefined);
});

test('an entry reads as absent once older than its maximum age, and is dropped', () => {
  const { map, advance } = aMap(10, 1000);
  map.set('a', 1);
  advance(1000);
  assert.is(map.get('a'), 1);
  advance(1);
  assert.is(map.get('a'), undefined);
  assert.is(map.size, 0);
});

test('a read does not make an entry younger: its age counts from when it was set', () => {
  const { map, advance } = aMap(10, 1000);
  map.set('a', 1);
  advance(600);
  assert.is(map.get('a'), 1);
  advance(600);
  assert.is(map.get('a'), undefined);
  map.set('a', 2);
  advance(600);
  assert.is(map.get('a'), 2);
});

test('evicting under churn keeps the most recent entries, in any number of rounds', () => {
  const { map } = aMap(3);
  for (let i = 0; i < 10_000; i++) map.set(`key-${i}`, i);
  assert.is(map.size, 3);
  assert.equal(
    ['key-9996', 'key-9997', 'key-9998', 'key-9999'].map((key) => map.get(key)),
    [undefined, 9997, 9998, 9999],
  );
});

test('deleteWhere drops the entries whose value matches', () => {
  const { map } = aMap(10);
  for (let i = 0; i < 6; i++) map.set(`key-${i}`, i);
  map.deleteWhere((value) => value !== null && value % 2 === 0);
  assert.is(map.size, 3);
  assert.is(map.get('key-1'), 1);
  assert.is(map.get('key-2'), undefined);
});

test('deleteWhere asks about each entry once, also when it deletes the least recently used one', () => {
  const { map } = aMap(3);
  // The fourth entry takes the evicted first one's place: the least recent entry's stale link points at it.
  for (const [index, key] of ['a', 'b', 'c', 'd'].entries()) map.set(key, index + 1);
  const asked: Array<number | null> = [];
  map.deleteWhere((value) => {
    asked.push(value);
    return value === 2;
  });
  assert.equal(asked.sort(), [2, 3, 4]);
  assert.equal(
    ['b', 'c', 'd'].map((key) => map.get(key)),
    [undefined, 3, 4],
  );
});

test.run();
