import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InMemoryActivityLog } from '../../src/adapters/persistence/memory/in-memory-activity-log.ts';
import { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { ActivityRetention } from '../../src/application/activity/activity-retention.ts';
import type { ActivityEntry } from '../../src/application/ports/activity-log.ts';
import { FixedClock } from '../support/fakes/fixed-clock.ts';

const DAY = 24 * 60 * 60 * 1000;
const ENTRY: ActivityEntry = {
  action: 'login',
  user: null,
  ip: null,
  userAgent: null,
  origin: null,
  collection: 'datagate_users',
  item: null,
};
const EVERYTHING = {
  filter: null,
  sort: [],
  limit: null,
  offset: 0,
  count: { total: true, filtered: false },
} as const;

async function logWithEntries(clock: FixedClock, count: number): Promise<InMemoryActivityLog> {
  const log = new InMemoryActivityLog(new InMemorySchema(), () => clock.now());
  for (let index = 0; index < count; index++) await log.record([ENTRY]);
  return log;
}

test('activity older than the retention is pruned in batches until none is left', async () => {
  const clock = new FixedClock();
  const log = await logWithEntries(clock, 25);
  clock.advance(DAY);
  await log.record([ENTRY]);
  clock.advance(90 * DAY - 1);
  const retention = new ActivityRetention(log, clock, {
    retentionMs: 90 * DAY,
    intervalMs: 60_000,
    batch: 10,
  });
  assert.is(await retention.run(), 25);
  assert.is((await log.activity(EVERYTHING, 'all')).totalCount, 1, 'the entry within the window stays');
  assert.is(await retention.run(), 0);
});

test('a retention of 0 keeps everything and starts no timer', async () => {
  const clock = new FixedClock();
  const log = await logWithEntries(clock, 3);
  clock.advance(10_000 * DAY);
  const retention = new ActivityRetention(log, clock, { retentionMs: 0, intervalMs: 60_000, batch: 10 });
  retention.start();
  assert.is(await retention.run(), 0);
  assert.is((await log.activity(EVERYTHING, 'all')).totalCount, 3);
  retention.stop();
});

test.run();
