import { type Kysely, sql } from 'kysely';
import * as assert from 'uvu/assert';
import { EMAILS_IN_NFC } from '../../../../src/adapters/persistence/mikro-orm/migrations/0010-e-mails-in-nfc.ts';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { aUser } from '../../../contracts/fixtures.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { skippableSuite } from '../../../support/skippable-suite.ts';

const JOSE_NFD = 'jose\u0301@example.com';
const JOSE_NFC = 'jos\u00e9@example.com';

/**
 * Migration 0010 (docs/decisions/0073): addresses stored before login normalised to NFC are rewritten in
 * it, so their users can still log in; one whose NFC form another user holds is left for an admin.
 */
for (const backend of databaseBackends()) {
  const target = backend.persistence();
  const test = skippableSuite<{ persistence: MikroOrmPersistence }>(
    `e-mail addresses rewritten in NFC on ${backend.name}`,
    target.skip,
  );
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
  });
  test.after(() => target.dispose());

  /** Users stored with these addresses as they are, as before the rule, then the migration's statement. */
  async function migrated(persistence: MikroOrmPersistence, emails: string[]): Promise<string[]> {
    const db = persistence.orm.em.fork().getKysely() as Kysely<unknown>;
    const ids: string[] = [];
    for (const email of emails) {
      const user = aUser();
      await persistence.users.save(user);
      await sql`update datagate_users set email = ${email} where id = ${user.id}`.execute(db);
      ids.push(user.id);
    }
    await sql.raw(EMAILS_IN_NFC).execute(db);
    const rows = await sql<{ id: string; email: string }>`select id, email from datagate_users`.execute(db);
    const byId = new Map(rows.rows.map((row) => [row.id, row.email]));
    return ids.map((id) => byId.get(id)!);
  }

  test('an address in another form than NFC is rewritten, and its user found by the typed one', async ({
    persistence,
  }) => {
    assert.equal(await migrated(persistence, [JOSE_NFD, 'plain@example.com']), [
      JOSE_NFC,
      'plain@example.com',
    ]);
    assert.ok(await persistence.users.findByEmail(JOSE_NFC));
  });

  test('an address whose NFC form another user holds is left as it is', async ({ persistence }) => {
    assert.equal(await migrated(persistence, [JOSE_NFD, JOSE_NFC]), [JOSE_NFD, JOSE_NFC]);
  });

  test.run();
}
