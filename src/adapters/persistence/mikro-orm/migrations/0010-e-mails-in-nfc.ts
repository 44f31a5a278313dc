import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail addresses stored before they were kept in Unicode NFC (docs/decisions/0073) are rewritten in it,
 * so that their users, whose typed address login now normalises, still find themselves. An address whose
 * NFC form another user holds (or would take too) is left as it is, for an admin to settle: rewriting it
 * would break the addresses' uniqueness, and choosing which user keeps it is not a migration's call.
 * `normalize` needs a UTF-8 database; in any other an address is what its bytes are, and nothing changes.
 */
export const EMAILS_IN_NFC = `
      do $$
      begin
        if current_setting('server_encoding') = 'UTF8' then
          update "datagate_users" as "user"
          set "email" = normalize("user"."email", NFC)
          where "user"."email" is not nfc normalized
            and (select count(*) from "datagate_users" as "other"
                 where normalize("other"."email", NFC) = normalize("user"."email", NFC)) = 1;
        end if;
      end
      $$`;

export class Migration0010EmailsInNfc extends Migration {
  override async up() {
    this.addSql(EMAILS_IN_NFC);
  }
}
