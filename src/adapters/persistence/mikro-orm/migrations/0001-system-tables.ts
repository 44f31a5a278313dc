import { Migration } from '@mikro-orm/migrations';

/**
 * Users, roles and refresh-token sessions. Constraints carry MikroORM-style names (`_unique`, `_foreign`,
 * `_index`) so a schema diff stays quiet, and so a unique violation names the field it is about.
 * Plain PostgreSQL 15 DDL: it must also run on PGlite (PostgreSQL 18).
 */
export class Migration0001SystemTables extends Migration {
  override async up() {
    this.addSql(`
      create table "datagate_roles" (
        "id" uuid not null,
        "name" varchar(255) not null,
        "description" text null,
        "admin_access" boolean not null default false,
        constraint "datagate_roles_pkey" primary key ("id"),
        constraint "datagate_roles_name_unique" unique ("name")
      )`);
    this.addSql(`
      create table "datagate_users" (
        "id" uuid not null,
        "email" varchar(254) not null,
        "password_hash" text not null,
        "role" uuid null,
        "status" varchar(16) not null default 'active',
        "first_name" varchar(255) null,
        "last_name" varchar(255) null,
        "token_digest" varchar(64) null,
        "created_at" timestamptz not null,
        constraint "datagate_users_pkey" primary key ("id"),
        constraint "datagate_users_email_unique" unique ("email"),
        constraint "datagate_users_token_digest_unique" unique ("token_digest"),
        constraint "datagate_users_status_check" check ("status" in ('active', 'suspended')),
        constraint "datagate_users_role_foreign" foreign key ("role")
          references "datagate_roles" ("id") on update cascade on delete set null
      )`);
    // Deleting a role nulls its users: without this index that is a scan of every user.
    this.addSql(`create index "datagate_users_role_index" on "datagate_users" ("role")`);
    this.addSql(`
      create table "datagate_sessions" (
        "id" uuid not null,
        "session_id" uuid not null,
        "user_id" uuid not null,
        "token_digest" varchar(64) not null,
        "created_at" timestamptz not null,
        "expires_at" timestamptz not null,
        "rotated_at" timestamptz null,
        "revoked_at" timestamptz null,
        constraint "datagate_sessions_pkey" primary key ("id"),
        constraint "datagate_sessions_token_digest_unique" unique ("token_digest"),
        constraint "datagate_sessions_user_id_foreign" foreign key ("user_id")
          references "datagate_users" ("id") on update cascade on delete cascade
      )`);
    this.addSql(`create index "datagate_sessions_session_id_index" on "datagate_sessions" ("session_id")`);
    this.addSql(`create index "datagate_sessions_user_id_index" on "datagate_sessions" ("user_id")`);
    // Housekeeping deletes by expiry.
    this.addSql(`create index "datagate_sessions_expires_at_index" on "datagate_sessions" ("expires_at")`);
  }
}
