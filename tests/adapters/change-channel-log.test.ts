import pino from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { logChangeChannel } from '../../src/adapters/change-channel-log.ts';
import type { ChangeFeed, ChangeListener } from '../../src/application/ports/change-feed.ts';

/** A feed whose channel the test drops and brings back, telling its listener as the real one does. */
function controlledFeed() {
  const listeners: ChangeListener[] = [];
  const feed: ChangeFeed & { live: boolean } = {
    live: true,
    status: () => ({ listener: 'ok', schema: 'event-trigger' }),
    publish: async () => {},
    subscribe: (listener) => {
      listeners.push(listener);
    },
    close: async () => {},
  };
  const tell = (live: boolean) => {
    feed.live = live;
    for (const listener of listeners) listener.lost();
  };
  return { feed, drop: () => tell(false), back: () => tell(true), truncated: () => tell(true) };
}

test('a lost change channel is logged once as a warning, its return once as info; a wide change is not', () => {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino(
    { level: 'info', base: undefined },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  const { feed, drop, back, truncated } = controlledFeed();
  logChangeChannel(feed, logger);
  truncated();
  drop();
  drop();
  back();
  truncated();
  assert.equal(
    lines.map(({ level, msg }) => [level, msg]),
    [
      [
        40,
        'lost the channel to other instances (LISTEN datagate_changes): caches dropped and read through until it is back',
      ],
      [30, 'the channel to other instances is back; caches dropped once more'],
    ],
  );
});

test.run();
