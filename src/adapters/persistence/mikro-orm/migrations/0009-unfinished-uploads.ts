import { Migration } from '@mikro-orm/migrations';

/**
 * The unfinished resumable uploads of each user (docs/api.md §15), counted against
 * `storage.tus.maxUnfinished` by every instance alike; the uploads' parts live in the file store. A row
 * goes with its upload (finished, terminated, swept) or with its user: an upload nobody may continue holds
 * no place.
 */
export class Migration0009UnfinishedUploads extends Migration {
  override async up() {
    this.addSql(`
      create table "datagate_unfinished_uploads" (
        "id" text primary key,
        "owner" uuid not null references "datagate_users" ("id") on delete cascade,
        "created_at" timestamptz not null
      )`);
    this.addSql(
      `create index "datagate_unfinished_uploads_owner" on "datagate_unfinished_uploads" ("owner", "created_at")`,
    );
  }
}
