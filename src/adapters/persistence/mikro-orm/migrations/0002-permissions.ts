import { Migration } from '@mikro-orm/migrations';

/**
 * Permissions (docs/api.md §6). A role's permissions go with the role (`on delete cascade`); `role` null is the
 * public role. Filters, presets and field lists are JSON as an admin wrote them, parsed when used.
 */
export class Migration0002Permissions extends Migration {
  override async up() {
    this.addSql(`
      create table "datagate_permissions" (
        "id" uuid not null,
        "role" uuid null,
        "collection" varchar(64) not null,
        "action" varchar(16) not null,
        "permissions" jsonb null,
        "validation" jsonb null,
        "presets" jsonb null,
        "fields" jsonb null,
        constraint "datagate_permissions_pkey" primary key ("id"),
        constraint "datagate_permissions_action_check"
          check ("action" in ('create', 'read', 'update', 'delete')),
        constraint "datagate_permissions_role_foreign" foreign key ("role")
          references "datagate_roles" ("id") on update cascade on delete cascade
      )`);
    // Every request looks up (role, collection, action); `role is null` uses this index too. It also
    // serves the cascade when a role is deleted.
    this.addSql(`
      create index "datagate_permissions_role_collection_action_index"
        on "datagate_permissions" ("role", "collection", "action")`);
  }
}
