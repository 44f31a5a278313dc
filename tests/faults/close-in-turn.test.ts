import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeInTurn } from '../../src/adapters/persistence/close-in-turn.ts';

const test = suite('closeInTurn: a shutdown that never waits forever');

test('a part that never closes is named, and the parts after it still close', async () => {
  const warnings: string[] = [];
  const closed: string[] = [];
  await closeInTurn(
    [
      { name: 'the first', close: async () => void closed.push('first') },
      { name: 'the stuck pool', close: () => new Promise<void>(() => {}) },
      { name: 'the last', close: async () => void closed.push('last') },
    ],
    { limitMs: 20, warn: (message) => warnings.push(message) },
  );
  assert.equal(closed, ['first', 'last']);
  assert.equal(warnings, ['the stuck pool did not close within 20 ms; shutting down without it']);
});

test('a part that fails does not stop the others; its error is thrown once all were tried', async () => {
  const closed: string[] = [];
  const failure = new Error('connection reset');
  let thrown: unknown;
  try {
    await closeInTurn(
      [
        {
          name: 'the failing',
          close: async () => {
            throw failure;
          },
        },
        { name: 'the last', close: async () => void closed.push('last') },
      ],
      { limitMs: 60_000, warn: () => assert.unreachable('nothing was late') },
    );
  } catch (error) {
    thrown = error;
  }
  assert.is(thrown, failure);
  assert.equal(closed, ['last']);
});

test('a part that is left behind and fails later is not an unhandled rejection', async () => {
  let fail: (error: Error) => void = () => {};
  await closeInTurn([{ name: 'the late', close: () => new Promise<void>((_, reject) => (fail = reject)) }], {
    limitMs: 1,
    warn: () => {},
  });
  fail(new Error('too late'));
  await new Promise((resolve) => setImmediate(resolve));
});

test.run();
