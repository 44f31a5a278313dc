import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { CollectionWatch } from './collection-watch.ts';
import { availableWatch } from './watch-collection.ts';

/**
 * Turns the recording of hand-made writes off: writes through datagate are still events, others no longer.
 * Answers whether the collection was watched.
 */
export class UnwatchCollectionHandler implements Handler<{ collection: string }, boolean> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly watch: CollectionWatch | undefined,
  ) {}

  async execute(caller: Accountability, { collection }: { collection: string }): Promise<boolean> {
    requireAdmin(caller);
    const watch = availableWatch(this.watch);
    return watch.unwatch(collectionFor(this.catalog, caller, collection).name);
  }
}
