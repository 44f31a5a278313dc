import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CallerConcurrencyLimit } from '../../src/adapters/http/caller-concurrency-limit.ts';
import { DomainError } from '../../src/domain/errors.ts';

const limit = suite('CallerConcurrencyLimit');

const NO_BORROWING = { burst: 1, quickMs: 50 };

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
  const turns = new CallerConcurrencyLimit({
    ...NO_BORROWING,
    concurrency: 1,
    queue: 0,
    queueTimeoutMs: 60_000,
  });
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
  const turns = new CallerConcurrencyLimit({
    ...NO_BORROWING,
    concurrency: 1,
    queue: 2,
    queueTimeoutMs: 60_000,
  });
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
  const turns = new CallerConcurrencyLimit({ ...NO_BORROWING, concurrency: 1, queue: 1, queueTimeoutMs: 5 });
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
  const turns = new CallerConcurrencyLimit({
    ...NO_BORROWING,
    concurrency: 1,
    queue: 0,
    queueTimeoutMs: 60_000,
  });
  await refusal(
    turns.run('a', async () => {
      throw new DomainError('NOT_FOUND', 'gone');
    }),
  );
  assert.is(await turns.run('a', async () => 'served'), 'served');
});

/** A limit on a clock the test moves, and a way to see which requests are running. */
function borrowing(settings: { concurrency: number; burst: number; queue?: number }) {
  let nowMs = 0;
  const turns = new CallerConcurrencyLimit(
    { quickMs: 50, queue: 64, queueTimeoutMs: 60_000, ...settings },
    () => nowMs,
  );
  const running = new Set<string>();
  const ends = new Map<string, () => void>();
  const results: Promise<unknown>[] = [];
  return {
    turns,
    running,
    advance: (ms: number) => {
      nowMs += ms;
    },
    /** Starts a request named `name` of `caller` that runs until `end(name)`. */
    start(caller: string, name: string) {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      ends.set(name, end);
      const result = turns.run(caller, async () => {
        running.add(name);
        await ended;
        running.delete(name);
      });
      results.push(result.catch(() => undefined));
      return result;
    },
    async end(name: string) {
      ends.get(name)?.();
      await settle();
    },
    /** A quick request of `caller`, run to its end: the caller's average becomes quick. */
    async quick(caller: string) {
      await turns.run(caller, async () => undefined);
    },
    all: () => Promise.all(results),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

limit('a caller alone whose requests are quick borrows turns up to burst, then waits', async () => {
  const box = borrowing({ concurrency: 2, burst: 4 });
  await box.quick('a');
  for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) box.start('a', name);
  await settle();
  assert.equal([...box.running].sort(), ['a1', 'a2', 'a3', 'a4'], 'two turns of its own, two borrowed');
  await box.end('a1');
  assert.ok(box.running.has('a5'), 'a freed turn goes to the next waiting request');
  for (const name of ['a2', 'a3', 'a4', 'a5']) await box.end(name);
  await box.all();
});

limit('a caller with no request done yet does not borrow: its cost is unknown', async () => {
  const box = borrowing({ concurrency: 2, burst: 4 });
  for (const name of ['a1', 'a2', 'a3']) box.start('a', name);
  await settle();
  assert.equal([...box.running].sort(), ['a1', 'a2']);
  await box.end('a1');
  await box.end('a2');
  await box.end('a3');
  await box.all();
});

limit('another caller always gets its own turns at once, even past burst', async () => {
  const box = borrowing({ concurrency: 2, burst: 4 });
  await box.quick('a');
  for (const name of ['a1', 'a2', 'a3', 'a4']) box.start('a', name);
  await settle();
  box.start('b', 'b1');
  box.start('b', 'b2');
  box.start('b', 'b3');
  await settle();
  assert.ok(box.running.has('b1') && box.running.has('b2'), 'b runs its two');
  assert.not.ok(box.running.has('b3'), 'b borrows nothing: the instance runs 6 requests, past burst');
  for (const name of ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'b3']) await box.end(name);
  await box.all();
});

limit('no borrowing while the instance runs burst requests in all', async () => {
  const box = borrowing({ concurrency: 2, burst: 4 });
  await box.quick('a');
  box.start('b', 'b1');
  box.start('b', 'b2');
  for (const name of ['a1', 'a2', 'a3', 'a4']) box.start('a', name);
  await settle();
  assert.equal([...box.running].filter((name) => name.startsWith('a')).sort(), ['a1', 'a2']);
  await box.end('b1');
  assert.ok(box.running.has('a3'), 'the room b left is lent to a');
  assert.not.ok(box.running.has('a4'));
  for (const name of ['a1', 'a2', 'a3', 'a4', 'b2']) await box.end(name);
  await box.all();
});

limit('one slow request keeps its caller from borrowing for a minute', async () => {
  const box = borrowing({ concurrency: 2, burst: 8 });
  box.start('a', 'slow');
  await settle();
  box.advance(400);
  await box.end('slow');
  for (const name of ['a1', 'a2', 'a3']) box.start('a', name);
  await settle();
  assert.equal([...box.running].sort(), ['a1', 'a2'], 'one slow request closes borrowing');
  for (const name of ['a1', 'a2', 'a3']) await box.end(name);
  box.advance(30_000);
  for (const name of ['b1', 'b2', 'b3']) box.start('a', name);
  await settle();
  assert.equal([...box.running].sort(), ['b1', 'b2'], 'quick requests since do not reopen it');
  for (const name of ['b1', 'b2', 'b3']) await box.end(name);
  box.advance(31_000);
  for (const name of ['c1', 'c2', 'c3']) box.start('a', name);
  await settle();
  assert.equal([...box.running].sort(), ['c1', 'c2', 'c3'], 'a minute later it borrows again');
  for (const name of ['c1', 'c2', 'c3']) await box.end(name);
  await box.all();
});

limit('a request running longer than quick stops its caller borrowing until it ends', async () => {
  const box = borrowing({ concurrency: 2, burst: 8 });
  await box.quick('a');
  box.start('a', 'long');
  await settle();
  box.advance(60);
  box.start('a', 'a2');
  box.start('a', 'a3');
  await settle();
  assert.equal([...box.running].sort(), ['a2', 'long'], 'its own second turn only');
  await box.end('long');
  await box.end('a2');
  await box.end('a3');
  await box.all();
});

limit('callers waiting to borrow are lent turns in turn', async () => {
  const box = borrowing({ concurrency: 1, burst: 4 });
  await box.quick('a');
  await box.quick('b');
  for (const caller of ['c', 'd', 'e', 'f']) box.start(caller, `${caller}1`);
  for (const name of ['a1', 'a2', 'a3', 'b1', 'b2', 'b3']) box.start(name[0]!, name);
  await settle();
  assert.equal([...box.running].sort(), ['a1', 'b1', 'c1', 'd1', 'e1', 'f1'], 'their own turns only');
  await box.end('c1');
  await box.end('d1');
  assert.not.ok(box.running.has('a2') || box.running.has('b2'), 'no room yet: 4 running');
  await box.end('e1');
  await box.end('f1');
  assert.ok(
    box.running.has('a2') && box.running.has('b2'),
    'one turn lent to each, in the order they waited',
  );
  assert.not.ok(box.running.has('a3') || box.running.has('b3'));
  for (const name of ['a1', 'b1', 'a2', 'a3', 'b2', 'b3']) await box.end(name);
  await box.all();
});

limit('a caller quick before it went idle is still known to be quick', async () => {
  const box = borrowing({ concurrency: 1, burst: 4 });
  await box.quick('a');
  box.advance(1000);
  box.start('a', 'a1');
  box.start('a', 'a2');
  await settle();
  assert.equal([...box.running].sort(), ['a1', 'a2']);
  await box.end('a1');
  await box.end('a2');
  await box.all();
});

limit.run();
