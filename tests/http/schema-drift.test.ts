import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { borrowed, databaseBackends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

for (const [target, drift] of suitePerBackend<
  { app: TestApp; admin: string; orm: MikroOrmPersistence['orm'] },
  MikroOrmPersistence
>(databaseBackends(), (backend) => `tables changed by hand, outside the API, on ${backend}`)) {
  drift.before(async (context) => {
    const persistence = await target.fresh();
    context.orm = persistence.orm;
    context.app = await startTestApp({ persistence: borrowed(persistence) });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  });
  drift.after(async ({ app }) => {
    await app.close();
    await target.dispose();
  });

  const db = (orm: MikroOrmPersistence['orm']) => orm.em.fork().getKysely();

  drift(
    'a column dropped by hand: the next read refreshes the schema instead of failing',
    async ({ app, admin, orm }) => {
      await sql`create table drifting (id integer primary key, label text, note text)`.execute(db(orm));
      await sql`insert into drifting values (1, 'one', 'first')`.execute(db(orm));
      await app.request('POST', '/utils/cache/clear', { token: admin });
      await sql`alter table drifting drop column note`.execute(db(orm));
      const response = await app.request('GET', '/items/drifting', { token: admin });
      assert.is(response.status, 200, response.text);
      assert.equal(response.body, [{ id: 1, label: 'one' }]);
    },
  );

  drift(
    'a column dropped by hand, or by another instance: writes refresh the schema too, never a 500',
    async ({ app, admin, orm }) => {
      await sql`alter table drifting add column extra text, add column spare text`.execute(db(orm));
      await app.request('POST', '/utils/cache/clear', { token: admin });
      await sql`alter table drifting drop column extra`.execute(db(orm));
      const updated = await app.request('PATCH', '/items/drifting/1', {
        token: admin,
        body: { label: 'uno' },
      });
      assert.is(updated.status, 200, updated.text);
      assert.equal(updated.body, { id: 1, label: 'uno', spare: null });

      await sql`alter table drifting drop column spare`.execute(db(orm));
      const created = await app.request('POST', '/items/drifting', {
        token: admin,
        body: { id: 2, label: 'two' },
      });
      assert.is(created.status, 200, created.text);
      assert.equal(created.body, { id: 2, label: 'two' });

      await sql`alter table drifting add column gone text`.execute(db(orm));
      await app.request('POST', '/utils/cache/clear', { token: admin });
      await sql`alter table drifting drop column gone`.execute(db(orm));
      const naming = await app.request('PATCH', '/items/drifting/2', { token: admin, body: { gone: 'x' } });
      assert.is(naming.status, 400, naming.text);
      assert.match(naming.text, '"field":"gone"');

      await sql`alter table drifting add column last text`.execute(db(orm));
      await app.request('POST', '/utils/cache/clear', { token: admin });
      await sql`alter table drifting drop column last`.execute(db(orm));
      const deleted = await app.request('DELETE', '/items/drifting/2', { token: admin });
      assert.is(deleted.status, 204, deleted.text);
      const left = await app.request('GET', '/items/drifting', { token: admin });
      assert.equal(left.body, [{ id: 1, label: 'uno' }]);
    },
  );

  drift(
    "a field past PostgreSQL's 1,600 columns (dropped ones count) is 400 naming it, nothing added",
    async ({ app, admin, orm }) => {
      const columns = Array.from({ length: 1599 }, (_, index) => `c${index} integer`).join(', ');
      await sql.raw(`create table crowded (id integer primary key, ${columns})`).execute(db(orm));
      await sql`alter table crowded drop column c0`.execute(db(orm));
      await app.request('POST', '/utils/cache/clear', { token: admin });
      const added = await app.request('POST', '/fields/crowded', {
        token: admin,
        body: { field: 'one_more', type: 'integer' },
      });
      assert.is(added.status, 400, added.text);
      assert.match(added.text, '"field":"one_more"');
      assert.match(added.text, 'FAILED_VALIDATION');
      const fields = await app.request('GET', '/fields/crowded', { token: admin });
      assert.is((fields.body as unknown[]).length, 1599);
      await sql`drop table crowded`.execute(db(orm));
    },
  );

  drift('a table dropped by hand is then a collection that does not exist', async ({ app, admin, orm }) => {
    await sql`drop table drifting`.execute(db(orm));
    const response = await app.request('GET', '/items/drifting/1', { token: admin });
    assert.is(response.status, 404);
    assert.match(response.text, 'COLLECTION_NOT_FOUND');
  });

  drift.run();
}
