import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RestartBackoff } from '../../../src/adapters/cluster/restart-backoff.ts';

const options = { baseMs: 100, maxMs: 1_000, stableAfterMs: 10_000 };

test('a worker that keeps dying young waits twice as long each time, up to the maximum', () => {
  const backoff = new RestartBackoff(options);
  const delays = Array.from({ length: 6 }, () => backoff.next(50));
  assert.equal(delays, [100, 200, 400, 800, 1_000, 1_000]);
});

test('a worker that had lived long is replaced after the base delay, and the doubling starts afresh', () => {
  const backoff = new RestartBackoff(options);
  backoff.next(50);
  backoff.next(50);
  assert.is(backoff.next(60_000), 100);
  assert.is(backoff.next(50), 100);
  assert.is(backoff.next(50), 200);
});

test.run();
