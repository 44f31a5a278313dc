import { type RawBuilder, sql } from 'kysely';
/** The change log's table (migration 0005), in the system tables' schema. */
export function itemEventsTable(systemSchema?: string): RawBuilder<unknown> {
  return systemSchema ? sql.id(systemSchema, 'datagate_item_events') : sql.id('datagate_item_events');
}
