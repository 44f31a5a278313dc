import type { Logger } from 'pino';
import type { ChangeFeed } from '../application/ports/change-feed.ts';

/**
 * Says in the log when the channel to the other instances (docs/api.md §10) is lost and when it is back.
 * `/server/health` shows it while it lasts (`reconnecting`), but whoever reads the log after the fact needs
 * the moments. A `lost` while the feed stays live is the channel's return, or a change too wide to name (a
 * TRUNCATE), which is no outage and is not logged.
 */
export function logChangeChannel(feed: ChangeFeed, logger: Logger): void {
  let down = false;
  feed.subscribe({
    changed() {},
    lost() {
      if (!feed.live && !down) {
        down = true;
        logger.warn(
          'lost the channel to other instances (LISTEN datagate_changes): caches dropped and read through until it is back',
        );
      } else if (feed.live && down) {
        down = false;
        logger.info('the channel to other instances is back; caches dropped once more');
      }
    },
  });
}
