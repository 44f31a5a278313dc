import { type RawBuilder, sql } from 'kysely';
import { DomainError, UNAVAILABLE_RETRY_AFTER_S } from '../../../domain/errors.ts';

/**
 * The row trigger of a watched collection (docs/decisions/0032-item-events-wake-up-and-watch.md): its name
 * is how the item writer and `realtime status` know the collection is watched.
 */
export const WATCH_TRIGGER = 'datagate_item_events';

/**
 * Whether the table has an enabled watch trigger, as the running statement sees the catalog: true where
 * the trigger, not the item writer, records the statement's changes.
 */
export function recordedByTrigger(schema: string, table: string): RawBuilder<boolean> {
  return sql<boolean>`exists (select from pg_catalog.pg_trigger t
    join pg_catalog.pg_class c on c.oid = t.tgrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relname = ${table} and t.tgname = ${WATCH_TRIGGER}
      and t.tgenabled <> 'D')`;
}

/**
 * The SQLSTATE a watched table's trigger raises when its columns changed by hand after it was watched: a
 * class of datagate's own, which no PostgreSQL error uses.
 */
export const WATCH_STALE_STATE = 'DG001';

/** A write to such a table, through the API: the table's writes wait for an operator, as a lost table does. */
export const watchStale = () =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    'Writes to this collection wait for an operator to renew its realtime watch: `datagate realtime watch <collection>`.',
    { reason: 'WATCH_STALE', retryAfter: UNAVAILABLE_RETRY_AFTER_S },
  );
