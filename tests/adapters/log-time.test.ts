import pino from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isoTimeOncePerMillisecond } from '../../src/adapters/log-time.ts';

test("writes what pino's own ISO timestamp writes", () => {
  const original = Date.now;
  try {
    for (const ms of [
      0,
      7,
      1_764_306_000_123,
      Date.UTC(2026, 10, 28, 23, 59, 59, 999),
      Date.UTC(2026, 10, 29),
      -1,
      -86_400_001,
      Date.UTC(12_345, 0, 1, 0, 0, 0, 42),
    ]) {
      Date.now = () => ms;
      assert.is(isoTimeOncePerMillisecond(() => ms)(), pino.stdTimeFunctions.isoTime());
    }
  } finally {
    Date.now = original;
  }
});

test('formats again as soon as the millisecond changes, either way', () => {
  let ms = 1_764_306_000_000;
  const time = isoTimeOncePerMillisecond(() => ms);
  assert.is(time(), ',"time":"2025-11-28T05:00:00.000Z"');
  assert.is(time(), ',"time":"2025-11-28T05:00:00.000Z"');
  ms += 1;
  assert.is(time(), ',"time":"2025-11-28T05:00:00.001Z"');
  ms -= 1;
  assert.is(time(), ',"time":"2025-11-28T05:00:00.000Z"', 'a clock set back is followed too');
  ms += 999;
  assert.is(time(), ',"time":"2025-11-28T05:00:00.999Z"');
  ms += 1;
  assert.is(time(), ',"time":"2025-11-28T05:00:01.000Z"', 'and into the next second');
  ms -= 1001;
  assert.is(time(), ',"time":"2025-11-28T04:59:59.999Z"', 'and back into the one before');
});

test.run();
