import { Migration } from '@mikro-orm/migrations';

/**
 * Every change to datagate's own tables notifies the channel `datagate_changes`, whoever makes it (an
 * instance, or SQL by hand), from inside the writing transaction: PostgreSQL delivers the notification
 * on commit and drops it on rollback (docs/decisions/0015-cross-instance-invalidation.md). Payloads are
 * ids only, in the shape of the `Change` port type. Sessions notify on update and delete only: a new
 * session changes nothing a cache holds.
 *
 * Schema changes by hand: an event trigger, which only a superuser may create; without the privilege (or
 * where event triggers do not run, as in PGlite's single-user mode) none is made and the instances compare
 * a fingerprint of the schema instead. Plain PostgreSQL 15; it must also run on PGlite.
 */
export class Migration0004ChangeNotifications extends Migration {
  override async up() {
    this.addSql(`
      create or replace function "datagate_notify_change"() returns trigger language plpgsql as $$
      declare
        kind text := tg_argv[0];
        key text := tg_argv[1];
        changed jsonb := to_jsonb(case when tg_op = 'DELETE' then old else new end);
      begin
        if tg_op = 'TRUNCATE' then
          perform pg_notify('datagate_changes', '{"kind":"everything"}');
        elsif key is null then
          perform pg_notify('datagate_changes', json_build_object('kind', kind)::text);
        else
          perform pg_notify('datagate_changes', json_build_object('kind', kind, 'id', changed ->> key)::text);
          if tg_op = 'UPDATE' and to_jsonb(old) ->> key is distinct from changed ->> key then
            perform pg_notify('datagate_changes', json_build_object('kind', kind, 'id', to_jsonb(old) ->> key)::text);
          end if;
        end if;
        return null;
      end $$`);
    const rows = (table: string, events: string, args: string, when = '') =>
      `create trigger "${table}_notify" after ${events} on "${table}" for each row ${when}
         execute procedure "datagate_notify_change"(${args})`;
    const truncate = (table: string) =>
      `create trigger "${table}_notify_truncate" after truncate on "${table}" for each statement
         execute procedure "datagate_notify_change"()`;
    this.addSql(rows('datagate_users', 'insert or update or delete', `'user', 'id'`));
    this.addSql(rows('datagate_roles', 'insert or update or delete', `'role', 'id'`));
    this.addSql(rows('datagate_permissions', 'insert or update or delete', `'permissions'`));
    this.addSql(
      rows('datagate_sessions', 'delete', `'session', 'session_id'`).replace('_notify"', '_notify_delete"'),
    );
    this.addSql(
      rows(
        'datagate_sessions',
        'update',
        `'session', 'session_id'`,
        `when (old.revoked_at is distinct from new.revoked_at or old.expires_at is distinct from new.expires_at
           or old.session_id is distinct from new.session_id)`,
      ),
    );
    for (const table of ['datagate_users', 'datagate_roles', 'datagate_permissions', 'datagate_sessions']) {
      this.addSql(truncate(table));
    }
    this.addSql(`
      create or replace function "datagate_schema_changed"() returns event_trigger language plpgsql as $$
      begin
        perform pg_notify('datagate_changes', '{"kind":"schema"}');
      end $$`);
    // Any failure leaves the instances on the fingerprint, which health reports: never a failed migration.
    this.addSql(`
      do $$
      begin
        if not exists (select from pg_event_trigger where evtname = 'datagate_schema_changes') then
          create event trigger "datagate_schema_changes" on ddl_command_end
            execute procedure "datagate_schema_changed"();
        end if;
      exception when others then
        null;
      end $$`);
  }
}
