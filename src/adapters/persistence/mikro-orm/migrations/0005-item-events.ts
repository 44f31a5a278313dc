import { Migration } from '@mikro-orm/migrations';

/**
 * The items' change log (docs/decisions/0030-item-change-log.md): one row per changed item, written by
 * the item writer in the write's transaction, read by every instance's ItemEventFeed, pruned after
 * `realtime.replayWindow`. Images are canonical JSON objects, keys the collection's field names.
 */
export class Migration0005ItemEvents extends Migration {
  override async up() {
    this.addSql(`
      create table "datagate_item_events" (
        "id" bigserial primary key,
        "at" timestamptz not null default now(),
        "collection" text not null,
        "action" text not null check ("action" in ('create', 'update', 'delete')),
        "key" jsonb not null,
        "before" json,
        "after" json
      )`);
    this.addSql(`create index "datagate_item_events_at" on "datagate_item_events" ("at")`);
  }
}
