import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sharedWhilePending } from '../../src/adapters/shared-while-pending.ts';

/** A load whose runs the test settles by hand, counting them. */
function manualLoad() {
  const runs: Array<{ key: string; settle: (value: string | Error) => void }> = [];
  const load = (key: string) =>
    new Promise<string>((resolve, reject) => {
      runs.push({ key, settle: (value) => (value instanceof Error ? reject(value) : resolve(value)) });
    });
  return { runs, load: sharedWhilePending(load) };
}

test('callers asking for the same key while it runs share one run and its answer', async () => {
  const { runs, load } = manualLoad();
  const answers = Promise.all([load('a'), load('a'), load('b')]);
  assert.equal(
    runs.map((run) => run.key),
    ['a', 'b'],
  );
  runs[0]!.settle('A');
  runs[1]!.settle('B');
  assert.equal(await answers, ['A', 'A', 'B']);
});

test('nothing is kept once a run settles: the next ask runs anew, after a failure too', async () => {
  const { runs, load } = manualLoad();
  const first = load('a');
  runs[0]!.settle(new Error('unreachable'));
  assert.is(await first.catch((error: Error) => error.message), 'unreachable');
  const second = load('a');
  assert.is(runs.length, 2);
  runs[1]!.settle('A');
  assert.is(await second, 'A');
  const third = load('a');
  assert.is(runs.length, 3);
  runs[2]!.settle('A again');
  assert.is(await third, 'A again');
});

test.run();
