import { Migration } from '@mikro-orm/migrations';

/**
 * Files' bytes in PostgreSQL large objects (`storage.driver: postgres`, docs/decisions/0038): a key
 * points at one large object. Keys sort byte-wise (collation "C"), as on a disk and in S3, so that a
 * listing's order and its page boundaries are the same on every store and every server's locale.
 */
export class Migration0008StorageObjects extends Migration {
  override async up() {
    this.addSql(`
      create table "datagate_storage_objects" (
        "key" text collate "C" primary key,
        "oid" oid not null,
        "size" int8 not null,
        "modified_at" timestamptz not null default now()
      )`);
  }
}
