import { Migration } from '@mikro-orm/migrations';

/**
 * The successor pair a refresh token was spent for, encrypted under a key only a holder of that token can
 * derive (docs/decisions/0002-refresh-token-rotation-with-grace.md), so that a replay within the grace
 * period answers the same pair. Null until the token is spent; tokens spent before this migration have
 * none, and a replay of one answers INVALID_TOKEN (at most one grace period after the upgrade).
 */
export class Migration0003SealedSuccessor extends Migration {
  override async up() {
    this.addSql(`alter table "datagate_sessions" add column "sealed_successor" text null`);
  }
}
