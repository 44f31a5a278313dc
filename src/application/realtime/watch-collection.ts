import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor, requireWritable } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { CollectionWatch } from './collection-watch.ts';

/**
 * Turns on the recording of a collection's writes made by hand in SQL (docs/api.md §12), or renews it
 * after its columns were changed by hand. Events name an item by its primary key, so a collection needs
 * one; a view is never written.
 */
export class WatchCollectionHandler implements Handler<{ collection: string }, void> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly watch: CollectionWatch | undefined,
  ) {}

  async execute(caller: Accountability, { collection }: { collection: string }): Promise<void> {
    const { watch, target } = watchable(this.catalog, this.watch, caller, collection);
    await watch.watch(target);
  }
}

/**
 * The watch and the collection it would watch, once every refusal is passed: for admins, where a watch is
 * available, a table (not a view) with a single-column primary key. Checks only; nothing changes.
 */
export function watchable(
  catalog: SchemaCatalog,
  watch: CollectionWatch | undefined,
  caller: Accountability,
  collection: string,
): { watch: CollectionWatch; target: CollectionSchema } {
  requireAdmin(caller);
  const available = availableWatch(watch);
  const target = collectionFor(catalog, caller, collection);
  requireWritable(target);
  if (target.primaryKey === null) {
    throw new DomainError(
      'INVALID_PAYLOAD',
      `Collection "${target.name}" has no single-column primary key: its changes cannot be told apart.`,
    );
  }
  return { watch: available, target };
}

/**
 * The watch, where the backend has SQL to write by hand (not in memory, where every write goes through
 * datagate and is an event already) and, to start one, records the change log.
 */
export function availableWatch(watch: CollectionWatch | undefined): CollectionWatch {
  if (watch) return watch;
  throw new DomainError(
    'INVALID_PAYLOAD',
    'Watching needs a database (PostgreSQL or the embedded one) with realtime enabled (realtime.enabled).',
    { reason: 'WATCH_UNAVAILABLE' },
  );
}
