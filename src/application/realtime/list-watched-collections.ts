import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { CollectionWatch, WatchedCollection } from './collection-watch.ts';

/** The collections whose hand-made writes are recorded; none where nothing can be watched. */
export class ListWatchedCollectionsHandler implements Handler<void, WatchedCollection[]> {
  constructor(private readonly watch: CollectionWatch | undefined) {}

  async execute(caller: Accountability): Promise<WatchedCollection[]> {
    requireAdmin(caller);
    return this.watch ? this.watch.watched() : [];
  }
}
