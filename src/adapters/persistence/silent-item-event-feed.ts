import type { ItemEventFeed } from '../../application/ports/item-events.ts';

/**
 * The feed where nothing is recorded (`realtime.enabled: false`): no event ever arrives, and no position
 * but the start is covered, so a resumption is told to start over.
 */
export const SILENT_ITEM_EVENT_FEED: ItemEventFeed = {
  subscribe: () => () => {},
  since: async (after) => (after === '0' ? [] : null),
  latest: async () => '0',
};
