import { type Kysely, sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { RefreshToken } from '../../../../src/domain/refresh-token.ts';
import type { User } from '../../../../src/domain/user.ts';
import { aRefreshToken, at, aUser } from '../../../contracts/fixtures.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { skippableSuite } from '../../../support/skippable-suite.ts';

type Context = { persistence: MikroOrmPersistence; user: User; spent: RefreshToken; successor: RefreshToken };

/**
 * A revocation (logout, a new password, a suspension) racing a refresh of one of the tokens it ends. The
 * refresh's rotation holds the spent token's row until it commits, with the successor it inserted; a
 * revocation that waited for that row must end the successor too, or the refresh hands out a live token of
 * a session that was ended (a password change that leaves the thief's session alive, a suspended user's
 * session back after reactivation). A login racing such a change starts no session: its first token is
 * inserted from the user's row, so it waits for the change and finds the row changed. Only a server has
 * two connections to race on.
 */
const target = databaseBackends()
  .find((backend) => backend.name === 'postgresql')!
  .persistence();
const test = skippableSuite<Context>('a revocation racing a refresh or a login on postgresql', target.skip);

test.before.each(async (context) => {
  context.persistence = await target.fresh();
  context.user = aUser();
  await context.persistence.users.save(context.user);
  context.spent = aRefreshToken({ userId: context.user.id });
  await context.persistence.refreshTokens.add(context.spent);
  context.successor = aRefreshToken({ userId: context.user.id, sessionId: context.spent.sessionId });
});
test.after(() => target.dispose());

/** `revoke` started while a rotation of `spent` into `successor` holds the row, and finished after its commit. */
async function revokeDuringRotation(context: Context, revoke: () => Promise<void>): Promise<void> {
  const db = context.persistence.orm.em.fork().getKysely() as Kysely<unknown>;
  let revoking: Promise<void> = Promise.resolve();
  await db.transaction().execute(async (trx) => {
    await sql`update datagate_sessions set rotated_at = ${at(1000).toISOString()}, sealed_successor = 'sealed'
      where id = ${context.spent.id}`.execute(trx);
    await sql`insert into datagate_sessions (id, session_id, user_id, token_digest, created_at, expires_at)
      values (${context.successor.id}, ${context.successor.sessionId}, ${context.user.id},
        ${context.successor.tokenDigest}, ${at(1000).toISOString()}, ${context.successor.expiresAt.toISOString()})`.execute(
      trx,
    );
    revoking = revoke();
    await waitUntilSomeStatementWaitsForALock(db);
  });
  await revoking;
}

async function waitUntilSomeStatementWaitsForALock(db: Kysely<unknown>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the revocation never waited for the rotation');
}

test('a logout racing a refresh ends the successor the refresh inserted', async (context) => {
  await revokeDuringRotation(context, () =>
    context.persistence.refreshTokens.revokeSession(context.spent.sessionId, at(2000)),
  );
  const successor = await context.persistence.refreshTokens.findByDigest(context.successor.tokenDigest);
  assert.equal(successor?.revokedAt, at(2000));
});

test("revoking a user's sessions racing a refresh ends the successor the refresh inserted", async (context) => {
  await revokeDuringRotation(context, () =>
    context.persistence.refreshTokens.revokeUser(context.user.id, at(2000)),
  );
  const successor = await context.persistence.refreshTokens.findByDigest(context.successor.tokenDigest);
  assert.equal(successor?.revokedAt, at(2000));
});

test('a login starting its session while a new password is being written starts none', async (context) => {
  const db = context.persistence.orm.em.fork().getKysely() as Kysely<unknown>;
  const first = aRefreshToken({ userId: context.user.id });
  let starting: Promise<boolean> = Promise.resolve(true);
  await db.transaction().execute(async (trx) => {
    await sql`update datagate_users set password_hash = 'another hash' where id = ${context.user.id}`.execute(
      trx,
    );
    starting = context.persistence.refreshTokens.addFirstOfSession(first, context.user.passwordHash);
    await waitUntilSomeStatementWaitsForALock(db);
  });
  assert.is(await starting, false);
  assert.is(await context.persistence.refreshTokens.findByDigest(first.tokenDigest), null);
});

test.run();
