import { Migration } from '@mikro-orm/migrations';

/**
 * Activity and revisions (docs/api.md §14, docs/decisions/0033): who did what, kept for
 * `activity.retention`. Item writes record an activity row per item and, for creates and updates, a
 * revision with the item after the change (`data`) and the fields written (`delta`), in the write's own
 * statement; `item` is the key's canonical text. No foreign key to the users (history outlives them) nor
 * from a revision to its entry, whose per-row check cost a tenth of a 100-item create; the writer and the
 * pruner keep them together. No index on `timestamp`: ids grow with time, so pruning walks the primary
 * key from the oldest (docs/decisions/0033).
 */
export class Migration0006Activity extends Migration {
  override async up() {
    this.addSql(`
      create table "datagate_activity" (
        "id" bigserial primary key,
        "action" text not null,
        "user" uuid,
        "timestamp" timestamptz not null default now(),
        "ip" text,
        "user_agent" text,
        "collection" text not null,
        "item" text,
        "origin" text
      )`);
    this.addSql(`create index "datagate_activity_item" on "datagate_activity" ("collection", "item")`);
    this.addSql(`
      create table "datagate_revisions" (
        "id" bigserial primary key,
        "activity" bigint not null,
        "collection" text not null,
        "item" text not null,
        "data" json,
        "delta" json
      )`);
    this.addSql(`create index "datagate_revisions_activity" on "datagate_revisions" ("activity")`);
  }
}
