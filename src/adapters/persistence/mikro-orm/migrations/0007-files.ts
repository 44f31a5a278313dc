import { Migration } from '@mikro-orm/migrations';

/**
 * Files (docs/api.md §15, docs/decisions/0037): a row per file, in Directus's `directus_files` shape
 * (the subset datagate fills), in the collections' schema so the item store reads and writes it as a
 * collection. The bytes live in the file store under `filename_disk`; `checksum` is their SHA-256 in hex,
 * the ETag. No foreign key to the users: a file outlives its uploader, as history does.
 */
export class Migration0007Files extends Migration {
  override async up() {
    this.addSql(`
      create table "datagate_files" (
        "id" uuid primary key,
        "filename_disk" varchar(255),
        "filename_download" varchar(255) not null,
        "title" varchar(255),
        "type" varchar(255),
        "filesize" bigint,
        "width" integer,
        "height" integer,
        "description" text,
        "metadata" jsonb,
        "checksum" varchar(64),
        "uploaded_by" uuid,
        "uploaded_on" timestamptz,
        "modified_by" uuid,
        "modified_on" timestamptz
      )`);
  }
}
