import type { Accountability } from '../../domain/accountability.ts';
import type { AccountabilityMode } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import { collectionFor, requireWritable } from '../items/collection-access.ts';
import type { ActivityEntry } from '../ports/activity-log.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import type { CollectionWatch } from '../realtime/collection-watch.ts';
import { realtimeWatchStates } from '../realtime/realtime-watch-state.ts';
import { availableWatch, watchable } from '../realtime/watch-collection.ts';
import { type CollectionView, viewCollection } from './collection-view.ts';

/**
 * What PATCH /collections/:collection may change (docs/api.md §7): `meta.accountability`, and
 * `meta.realtime_watch` (the trigger of `datagate realtime watch`, docs/api.md §12); absent, nothing.
 */
export type UpdateCollectionCommand = {
  readonly collection: string;
  readonly accountability?: AccountabilityMode;
  readonly realtimeWatch?: boolean;
};

/**
 * Where a collection's writes made by hand can be watched: `watch` reads and removes watches (the
 * backend's, undefined in memory); `start` installs them, undefined too while realtime is off (nothing
 * would prune what they record), as the command line's `realtime watch` is.
 */
export type RealtimeWatching = {
  readonly watch: CollectionWatch | undefined;
  readonly start: CollectionWatch | undefined;
};

export class UpdateCollectionHandler implements Handler<UpdateCollectionCommand, CollectionView> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
    private readonly watching: RealtimeWatching,
  ) {}

  async execute(caller: Accountability, command: UpdateCollectionCommand): Promise<CollectionView> {
    requireAdmin(caller);
    // A watch's images are generated from the columns as the catalog has them, which must be the table's: a
    // column changed by hand may not have been heard of yet (what makes a watch stale in the first place).
    if (command.realtimeWatch === true) await this.catalog.refresh();
    let collection = collectionFor(this.catalog, caller, command.collection);
    const change = this.realtimeWatchChange(caller, command);
    // Every refusal comes before any change: a body refused in part changes nothing.
    if (command.accountability !== undefined) requireWritable(collection);
    // One entry per request, recorded with the first change it makes.
    const activity = systemActivity(caller, 'update', 'datagate_collections', collection.name);
    await change?.(activity);
    if (command.accountability !== undefined) {
      const recorded = change ? undefined : activity;
      collection = await this.editor.setAccountability(collection.name, command.accountability, recorded);
    }
    const states = await realtimeWatchStates(this.watching.watch);
    return viewCollection(collection, states.get(collection.name) ?? false);
  }

  /** The watch to start or stop, checked as the command line checks it; undefined when none is asked. */
  private realtimeWatchChange(
    caller: Accountability,
    { collection, realtimeWatch }: UpdateCollectionCommand,
  ): ((activity: ActivityEntry) => Promise<void>) | undefined {
    if (realtimeWatch === undefined) return undefined;
    if (realtimeWatch) {
      const { watch, target } = watchable(this.catalog, this.watching.start, caller, collection);
      return (activity) => watch.watch(target, activity);
    }
    const watch = availableWatch(this.watching.watch);
    const target = collectionFor(this.catalog, caller, collection);
    // A view is never watched; changing its meta is refused as any change to a view is.
    requireWritable(target);
    return async (activity) => {
      await watch.unwatch(target.name, activity);
    };
  }
}
