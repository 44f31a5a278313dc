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
    'a column dropped by hand: an import refreshes the schema and asks for the file again, never a 500',
    async ({ app, admin, orm }) => {
      const importing = (rawBody: string) =>
        app.request('POST', '/utils/import/drifting', {
          token: admin,
          rawBody,
          headers: { 'Content-Type': 'text/csv' },
        });
      await sql`alter table drifting add column extra text`.execute(db(orm));
      await app.request('POST', '/utils/cache/clear', { token: admin });
      await sql`alter table drifting drop column extra`.execute(db(orm));
      // The file cannot be read twice: the answer says to send it again, which then meets the columns as they are.
      const untouched = await importing('id,label\n10,ten\n');
      assert.is(untouched.status, 503, untouched.text);
      assert.match(untouched.text, '"reason":"SCHEMA_CHANGED"');
      assert.is(untouched.headers.get('retry-after'), '1');
      const again = await importing('id,label\n10,ten\n');
      assert.is(again.status, 200, again.text);

      await sql`alter table drifting add column gone text`.execute(db(orm));
      await app.request('POST', '/utils/cache/clear', { token: admin });
      await sql`alter table drifting drop column gone`.execute(db(orm));
      const batch = await app.request('POST', '/utils/import/drifting?mode=batch', {
        token: admin,
        rawBody: 'id,label\n11,eleven\n',
        headers: { 'Content-Type': 'text/csv' },
      });
      assert.is(batch.status, 200, batch.text);
      assert.match(batch.text, '"reason":"SCHEMA_CHANGED"');
      const naming = await importing('id,label,gone\n11,eleven,x\n');
      assert.is(naming.status, 400, naming.text);
      assert.match(naming.text, 'gone');
      const rows = await app.request('GET', '/items/drifting?sort=id&fields=id', { token: admin });
      assert.equal(rows.body, [{ id: 1 }, { id: 10 }]);
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

  drift(
    'a collection named like a type, index or sequence of the schema is 409 saying what holds the name',
    async ({ app, admin, orm }) => {
      await sql`create type feeling as enum ('calm')`.execute(db(orm));
      await sql`create table holder (id integer generated by default as identity primary key)`.execute(
        db(orm),
      );
      await app.request('POST', '/utils/cache/clear', { token: admin });
      for (const name of ['feeling', 'holder_pkey', 'holder_id_seq']) {
        const created = await app.request('POST', '/collections', {
          token: admin,
          body: {
            collection: name,
            fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
          },
        });
        assert.is(created.status, 409, `${name}: ${created.text}`);
        assert.match(created.text, '"code":"RECORD_NOT_UNIQUE"');
        assert.match(created.text, '"field":"collection"');
        assert.match(created.text, 'another object of the database schema');
      }
      const taken = await app.request('POST', '/collections', {
        token: admin,
        body: { collection: 'holder', fields: [{ field: 'id', type: 'integer' }] },
      });
      assert.is(taken.status, 409, taken.text);
      assert.match(taken.text, 'Collection \\"holder\\" exists.');
      await sql`drop table holder`.execute(db(orm));
      await sql`drop type feeling`.execute(db(orm));
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
