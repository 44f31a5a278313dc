import type { Accountability } from '../../domain/accountability.ts';
import { isSystemCollection } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { CollectionWatch } from '../realtime/collection-watch.ts';
import { realtimeWatchStates } from '../realtime/realtime-watch-state.ts';
import { type CollectionView, viewCollection } from './collection-view.ts';

export class ListCollectionsHandler implements Handler<void, CollectionView[]> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly watch: CollectionWatch | undefined,
  ) {}

  async execute(caller: Accountability): Promise<CollectionView[]> {
    requireAdmin(caller);
    // The system collections the catalog presents (files) are not the schema's to list or edit.
    const states = await realtimeWatchStates(this.watch);
    return [...this.catalog.current().collections.values()]
      .filter((collection) => !isSystemCollection(collection.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((collection) => viewCollection(collection, states.get(collection.name) ?? false));
  }
}
