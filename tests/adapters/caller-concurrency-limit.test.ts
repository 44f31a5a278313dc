import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CallerConcurrencyLimit } from '../../src/adapters/http/caller-concurrency-limit.ts';
import { DomainError } from '../../src/domain/errors.ts';

const limit = suite('CallerConcurrencyLimit');

/** Work that runs until the test ends it. */
function held() {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return { work: () => ended, end };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.instance(error, DomainError);
  return error as DomainError;
}

limit('turns are counted per caller: another caller runs while one is at its limit', async () => {
  const turns = new CallerConcurrencyLimit({ concurrency: 1, queue: 0, queueTimeoutMs: 60_000 });
  const first = held();
  const running = turns.run('a', first.work);
  const refused = await refusal(turns.run('a', async () => 'never'));
  assert.is(refused.code, 'TOO_MANY_REQUESTS');
  assert.is(refused.extensions.retryAfter, 1);
  assert.is(await turns.run('b', async () => 'b ran'), 'b ran');
  first.end();
  await running;
  assert.is(await turns.run('a', async () => 'a again'), 'a again');
});

limit('waiting requests take turns in order as turns free up', async () => {
  const turns = new CallerConcurrencyLimit({ concurrency: 1, queue: 2, queueTimeoutMs: 60_000 });
  const order: string[] = [];
  const first = held();
  const running = turns.run('a', first.work);
  const second = turns.run('a', async () => order.push('second'));
  const third = turns.run('a', async () => order.push('third'));
  first.end();
  await Promise.all([running, second, third]);
  assert.equal(order, ['second', 'third']);
});

limit('a wait past queueTimeout is refused, and the refused request never runs', async () => {
  const turns = new CallerConcurrencyLimit({ concurrency: 1, queue: 1, queueTimeoutMs: 5 });
  const first = held();
  const running = turns.run('a', first.work);
  let ran = false;
  const refused = await refusal(
    turns.run('a', async () => {
      ran = true;
    }),
  );
  assert.is(refused.code, 'TOO_MANY_REQUESTS');
  first.end();
  await running;
  assert.not.ok(ran);
});

limit('a turn is given back when the work fails', async () => {
  const turns = new CallerConcurrencyLimit({ concurrency: 1, queue: 0, queueTimeoutMs: 60_000 });
  await refusal(
    turns.run('a', async () => {
      throw new DomainError('NOT_FOUND', 'gone');
    }),
  );
  assert.is(await turns.run('a', async () => 'served'), 'served');
});

limit.run();
