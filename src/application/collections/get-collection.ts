import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { type CollectionView, viewCollection } from './collection-view.ts';

export class GetCollectionHandler implements Handler<{ collection: string }, CollectionView> {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability, { collection }: { collection: string }): Promise<CollectionView> {
    requireAdmin(caller);
    return viewCollection(collectionFor(this.catalog, caller, collection));
  }
}
