import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ActivityEntry } from '../ports/activity-log.ts';

/** A collection whose writes made by hand in SQL are recorded in the change log (docs/api.md §12). */
export type WatchedCollection = {
  readonly collection: string;
  /**
   * False when its columns changed after it was watched, by hand: its writes are refused until it is
   * watched again, as its events would no longer carry the right images.
   */
  readonly current: boolean;
};

/**
 * Records a collection's changes in the database itself (a trigger), whoever makes them: the API, SQL by
 * hand, another application, a foreign key's referential action. Only where there is SQL to write by hand.
 */
export interface CollectionWatch {
  /**
   * Installs the recording for the collection as the catalog describes it now, or renews it; `activity`,
   * when given, is recorded in the same transaction (a change made through the API, docs/api.md §14).
   */
  watch(collection: CollectionSchema, activity?: ActivityEntry): Promise<void>;
  /** Removes it, recording `activity` with it when given; false when the collection was not watched. */
  unwatch(collection: string, activity?: ActivityEntry): Promise<boolean>;
  /** The watched collections, by name. */
  watched(): Promise<WatchedCollection[]>;
}
