import { type RawBuilder, sql } from 'kysely';

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
