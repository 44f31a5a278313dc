import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { CollectionWatch } from '../realtime/collection-watch.ts';
import { realtimeWatchStates } from '../realtime/realtime-watch-state.ts';
import { type CollectionView, viewCollection } from './collection-view.ts';

export class GetCollectionHandler implements Handler<{ collection: string }, CollectionView> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly watch: CollectionWatch | undefined,
  ) {}

  async execute(caller: Accountability, { collection }: { collection: string }): Promise<CollectionView> {
    requireAdmin(caller);
    const found = collectionFor(this.catalog, caller, collection);
    const states = await realtimeWatchStates(this.watch);
    return viewCollection(found, states.get(found.name) ?? false);
  }
}
