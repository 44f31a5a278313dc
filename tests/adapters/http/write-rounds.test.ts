import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WriteRounds } from '../../../src/adapters/http/write-rounds.ts';

/** A stream that records its corks and uncorks. */
function recordingStream() {
  const calls: string[] = [];
  return { calls, cork: () => calls.push('cork'), uncork: () => calls.push('uncork') };
}

test('every stream written to in a tick is corked once and let go at the end of the tick', async () => {
  const rounds = new WriteRounds();
  const a = recordingStream();
  const b = recordingStream();
  rounds.hold(a);
  rounds.hold(b);
  rounds.hold(a);
  assert.equal(a.calls, ['cork']);
  await nextTurn();
  assert.equal(a.calls, ['cork', 'uncork']);
  assert.equal(b.calls, ['cork', 'uncork']);
  rounds.hold(a);
  await nextTurn();
  assert.equal(a.calls, ['cork', 'uncork', 'cork', 'uncork']);
});

test('with a spacing, a round that follows another within it waits for the rest of it', async () => {
  const rounds = new WriteRounds(1000);
  const stream = recordingStream();
  rounds.hold(stream);
  await nextTurn();
  assert.equal(stream.calls, ['cork', 'uncork'], 'the first round leaves at once');
  rounds.hold(stream);
  await nextTurn();
  assert.equal(stream.calls, ['cork', 'uncork', 'cork'], 'the next one is held');
  while (stream.calls.length < 4) await sleep(100);
  assert.equal(stream.calls, ['cork', 'uncork', 'cork', 'uncork'], 'and leaves at the end of the spacing');
});

test('a stream flushed within a round is let go at once, and held again by its next write', async () => {
  const rounds = new WriteRounds();
  const stream = recordingStream();
  const other = recordingStream();
  rounds.flush(stream);
  assert.equal(stream.calls, [], 'a stream the round does not hold is left alone');
  rounds.hold(stream);
  rounds.hold(other);
  rounds.flush(stream);
  assert.equal(stream.calls, ['cork', 'uncork']);
  rounds.hold(stream);
  await nextTurn();
  assert.equal(stream.calls, ['cork', 'uncork', 'cork', 'uncork']);
  assert.equal(other.calls, ['cork', 'uncork'], 'the others leave with the round');
});

test.run();
