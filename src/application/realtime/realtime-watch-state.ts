import type { CollectionWatch } from './collection-watch.ts';

/**
 * A collection's `meta.realtime_watch` (docs/api.md §7): whether its writes made by hand in SQL are events —
 * `stale` when it is watched but its columns changed by hand since, so that its writes are refused until it
 * is watched again.
 */
export type RealtimeWatchState = boolean | 'stale';

/** Every watched collection's state, by name (a collection not in it is not watched); none without a watch. */
export async function realtimeWatchStates(
  watch: CollectionWatch | undefined,
): Promise<ReadonlyMap<string, RealtimeWatchState>> {
  if (!watch) return new Map();
  const watched = await watch.watched();
  return new Map(watched.map(({ collection, current }) => [collection, current || 'stale']));
}
