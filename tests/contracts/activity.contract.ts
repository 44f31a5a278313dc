import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { type SystemArea, systemActivity } from '../../src/application/activity/system-activity.ts';
import type { HistoryVisibility, VisibleHistory } from '../../src/application/ports/activity-log.ts';
import type { SystemQuery } from '../../src/application/ports/system-query.ts';
import type { Accountability } from '../../src/domain/accountability.ts';
import type { BoundFilterNode } from '../../src/domain/query/filter.ts';
import { Role } from '../../src/domain/role.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { NewField } from '../../src/domain/schema/new-field.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { rejectsAsNotUnique } from './assertions.ts';

type Context = { persistence: Persistence; cargos: CollectionSchema };

const CARGO_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'name', type: 'string', isNullable: false, isUnique: true },
  { field: 'temperature', type: 'integer' },
  { field: 'owner', type: 'string' },
];

const AUTHOR: Accountability = {
  user: '0190a5c0-0000-7000-8000-000000000001',
  role: null,
  admin: false,
  session: null,
  origin: { ip: '203.0.113.9', userAgent: 'curl/8', origin: 'https://app.example' },
};

const ALL: SystemQuery = {
  filter: null,
  sort: [],
  limit: null,
  offset: 0,
  count: { total: true, filtered: true },
};

const equals = (field: string, value: string | number): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator: '_eq',
  value,
});

let collections = 0;

/** Activity and revisions (docs/api.md §14) as every backend records them from its item writer. */
export function activityContract(target: PersistenceTarget) {
  const test = skippableSuite<Context>(`Activity on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    const name = `cargos_activity_${++collections}`;
    await context.persistence.schemaEditor.createCollection(name, CARGO_FIELDS);
    context.cargos = context.persistence.schema.current().collections.get(name)!;
  });
  test.after.each(async ({ persistence, cargos }) => {
    await persistence.schemaEditor.dropCollection(cargos.name);
  });
  test.after(() => target.dispose());

  const seed = (persistence: Persistence, cargos: CollectionSchema) =>
    persistence.items.write(
      (writer) =>
        writer.insert(cargos, [
          { id: 1, name: 'ice', temperature: -20, owner: 'ann' },
          { id: 2, name: 'fish', temperature: 2, owner: 'bob' },
        ]),
      AUTHOR,
    );

  test('creates, updates and deletes record an entry per item, by their author', async ({
    persistence,
    cargos,
  }) => {
    await seed(persistence, cargos);
    await persistence.items.write((writer) => writer.update(cargos, [1, 2], { temperature: 4 }), AUTHOR);
    await persistence.items.write((writer) => writer.delete(cargos, [1]));
    const page = await persistence.activity.activity(
      { ...ALL, sort: [{ field: 'id', direction: 'asc' }] },
      'all',
    );
    const entries = page.records.map(({ action, item, user, ip, user_agent, origin, collection }) => ({
      action,
      item,
      user,
      ip,
      user_agent,
      origin,
      collection,
    }));
    const by = { user: AUTHOR.user, ip: '203.0.113.9', user_agent: 'curl/8', origin: 'https://app.example' };
    const none = { user: null, ip: null, user_agent: null, origin: null };
    const sorted = (rows: typeof entries) => [
      ...rows.slice(0, 2).sort(byItem),
      ...rows.slice(2, 4).sort(byItem),
      ...rows.slice(4),
    ];
    assert.equal(sorted(entries), [
      { action: 'create', item: '1', ...by, collection: cargos.name },
      { action: 'create', item: '2', ...by, collection: cargos.name },
      { action: 'update', item: '1', ...by, collection: cargos.name },
      { action: 'update', item: '2', ...by, collection: cargos.name },
      { action: 'delete', item: '1', ...none, collection: cargos.name },
    ]);
    assert.is(page.totalCount, 5);
    assert.match(String(page.records[0]!.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
  });

  test('a create or update has a revision: the item after, and the fields written', async ({
    persistence,
    cargos,
  }) => {
    await seed(persistence, cargos);
    await persistence.items.write((writer) => writer.update(cargos, [2], { temperature: 4 }), AUTHOR);
    await persistence.items.write((writer) => writer.delete(cargos, [1]), AUTHOR);
    const page = await persistence.activity.revisions({ ...ALL, filter: equals('item', '2') }, 'all');
    assert.equal(
      page.records.map(({ data, delta, item, collection }) => ({ data, delta, item, collection })),
      [
        {
          data: { id: 2, name: 'fish', temperature: 2, owner: 'bob' },
          delta: { id: 2, name: 'fish', temperature: 2, owner: 'bob' },
          item: '2',
          collection: cargos.name,
        },
        {
          data: { id: 2, name: 'fish', temperature: 4, owner: 'bob' },
          delta: { temperature: 4 },
          item: '2',
          collection: cargos.name,
        },
      ],
    );
    const revision = page.records[1]!;
    const activity = await persistence.activity.activity(
      { ...ALL, filter: equals('id', String(revision.activity)) },
      'all',
    );
    assert.is(activity.records[0]!.action, 'update');
    const all = await persistence.activity.revisions(ALL, 'all');
    assert.is(all.totalCount, 3, 'the delete records no revision');
  });

  test('a write that rolls back records nothing', async ({ persistence, cargos }) => {
    await seed(persistence, cargos);
    const failed = await persistence.items
      .write(async (writer) => {
        await writer.update(cargos, [1], { temperature: 9 });
        await writer.insert(cargos, [{ id: 3, name: 'ice' }]);
      }, AUTHOR)
      .then(
        () => 'committed',
        () => 'refused',
      );
    assert.is(failed, 'refused');
    const thrown = await persistence.items
      .write(async (writer) => {
        await writer.delete(cargos, [2]);
        throw new Error('the work fails after its writes');
      }, AUTHOR)
      .then(
        () => 'committed',
        () => 'refused',
      );
    assert.is(thrown, 'refused');
    assert.is((await persistence.activity.activity(ALL, 'all')).totalCount, 2);
    assert.is((await persistence.activity.revisions(ALL, 'all')).totalCount, 2);
  });

  test("a system area's change records its entry with it; a refused change or a missing record none", async ({
    persistence,
    cargos,
  }) => {
    const entry = (action: 'create' | 'update' | 'delete', collection: SystemArea, item: string) =>
      systemActivity(AUTHOR, action, collection, item);
    const role = new Role({ id: randomUUID(), name: 'Auditors', description: null, adminAccess: false });
    await persistence.roles.save(role, entry('create', 'datagate_roles', role.id));
    const taken = new Role({ id: randomUUID(), name: 'Auditors', description: null, adminAccess: false });
    await rejectsAsNotUnique(
      persistence.roles.save(taken, entry('create', 'datagate_roles', taken.id)),
      'name',
    );
    assert.is(await persistence.roles.delete(randomUUID(), entry('delete', 'datagate_roles', 'none')), false);
    assert.ok(await persistence.roles.delete(role.id, entry('delete', 'datagate_roles', role.id)));
    await persistence.schemaEditor.setAccountability(
      cargos.name,
      'activity',
      entry('update', 'datagate_collections', cargos.name),
    );
    await rejectsAsNotUnique(
      persistence.schemaEditor.createCollection(
        cargos.name,
        CARGO_FIELDS,
        entry('create', 'datagate_collections', cargos.name),
      ),
      'collection',
    );
    const page = await persistence.activity.activity(
      { ...ALL, sort: [{ field: 'id', direction: 'asc' }] },
      'all',
    );
    assert.equal(
      page.records.map((record) => `${record.action} ${record.collection} ${record.item}`),
      [
        `create datagate_roles ${role.id}`,
        `delete datagate_roles ${role.id}`,
        `update datagate_collections ${cargos.name}`,
      ],
    );
    assert.is(page.records[0]!.user, AUTHOR.user);
    assert.is(page.records[0]!.user_agent, 'curl/8');
  });

  test('a collection set to "activity" records no revisions, set to null nothing', async ({
    persistence,
    cargos,
  }) => {
    const activityOnly = await persistence.schemaEditor.setAccountability(cargos.name, 'activity');
    assert.is(activityOnly.accountability, 'activity');
    await seed(persistence, activityOnly);
    assert.is((await persistence.activity.activity(ALL, 'all')).totalCount, 2);
    assert.is((await persistence.activity.revisions(ALL, 'all')).totalCount, 0);
    const off = await persistence.schemaEditor.setAccountability(cargos.name, null);
    assert.is(persistence.schema.current().collections.get(cargos.name)!.accountability, null);
    await persistence.items.write((writer) => writer.update(off, [1, 2], { temperature: 0 }), AUTHOR);
    assert.is((await persistence.activity.activity(ALL, 'all')).totalCount, 2);
    const back = await persistence.schemaEditor.setAccountability(cargos.name, 'all');
    assert.is(back.accountability, undefined);
    await persistence.schemaEditor.addField(cargos.name, { field: 'note', type: 'text' });
    await persistence.schemaEditor.setAccountability(cargos.name, 'activity');
    const widened = await persistence.schemaEditor.addField(cargos.name, { field: 'remark', type: 'text' });
    assert.is(widened.accountability, 'activity', 'a new field keeps the setting');
  });

  test('a caller sees only the history of rows they may read now, cut to fields they may read', async ({
    persistence,
    cargos,
  }) => {
    await seed(persistence, cargos);
    await persistence.items.write((writer) => writer.update(cargos, [1, 2], { temperature: 5 }), AUTHOR);
    // Writes `owner` alone, which the caller below may not read: theirs to see neither as an entry nor a revision.
    await persistence.items.write((writer) => writer.update(cargos, [1], { owner: 'ann' }), AUTHOR);
    await persistence.activity.record([
      {
        action: 'login',
        user: AUTHOR.user,
        ip: null,
        userAgent: null,
        origin: null,
        collection: 'datagate_users',
        item: AUTHOR.user,
      },
    ]);
    // Ann's rows only; `temperature` only where it is below 10, `owner` never.
    const visibility: HistoryVisibility = {
      user: null,
      collections: [
        {
          collection: cargos,
          rule: {
            rows: equals('owner', 'ann'),
            fields: new Map<string, BoundFilterNode | null>([
              ['id', null],
              ['name', null],
              ['temperature', { kind: 'condition', field: 'temperature', operator: '_lt', value: 10 }],
            ]),
          },
        },
      ],
    };
    const activity = await persistence.activity.activity(ALL, visibility);
    assert.equal(activity.records.map((entry) => entry.item).sort(), ['1', '1']);
    assert.is(activity.totalCount, 2);
    assert.is(activity.filterCount, 2);
    const revisions = await persistence.activity.revisions(
      { ...ALL, sort: [{ field: 'id', direction: 'asc' }] },
      visibility,
    );
    assert.equal(
      revisions.records.map(({ data, delta }) => ({ data, delta })),
      [
        { data: { id: 1, name: 'ice', temperature: -20 }, delta: { id: 1, name: 'ice', temperature: -20 } },
        { data: { id: 1, name: 'ice', temperature: 5 }, delta: { temperature: 5 } },
      ],
    );
    const everything = await persistence.activity.revisions(
      { ...ALL, filter: equals('item', '1'), sort: [{ field: 'id', direction: 'asc' }] },
      'all',
    );
    assert.equal(
      everything.records.map(({ delta }) => delta),
      [{ id: 1, name: 'ice', temperature: -20, owner: 'ann' }, { temperature: 5 }, { owner: 'ann' }],
      'an admin sees every revision',
    );
    assert.is(
      (await persistence.activity.activity({ ...ALL, filter: equals('item', '1') }, 'all')).filterCount,
      3,
    );
    const hidden = await persistence.activity.revisions({ ...ALL, filter: equals('item', '2') }, visibility);
    assert.equal(hidden.records, []);
    assert.is(hidden.totalCount, 2, 'the total counts only what the caller sees');
    assert.is(hidden.filterCount, 0);

    // Once the row is no longer the caller's, neither is its history.
    await persistence.items.write((writer) => writer.update(cargos, [1], { owner: 'bob' }));
    assert.is((await persistence.activity.revisions(ALL, visibility)).totalCount, 0);
    // A field shown only under a condition disappears when the row no longer meets it, and with it the
    // revisions that wrote no other readable field.
    await persistence.items.write((writer) => writer.update(cargos, [1], { owner: 'ann', temperature: 30 }));
    const cut = await persistence.activity.revisions(
      { ...ALL, sort: [{ field: 'id', direction: 'asc' }] },
      visibility,
    );
    assert.equal(
      cut.records.map(({ data, delta }) => ({ data, delta })),
      [{ data: { id: 1, name: 'ice' }, delta: { id: 1, name: 'ice' } }],
    );
    assert.is(
      (await persistence.activity.activity(ALL, { user: null, collections: [] })).totalCount,
      0,
      'nothing without a collection',
    );
  });

  test("a caller sees the address, user agent and origin of their own entries only, and cannot filter on others'", async ({
    persistence,
    cargos,
  }) => {
    await seed(persistence, cargos);
    await persistence.items.write((writer) => writer.update(cargos, [1], { temperature: 5 }), AUTHOR);
    const readable: VisibleHistory = {
      collection: cargos,
      rule: { rows: null, fields: new Map<string, BoundFilterNode | null>([['id', null]]) },
    };
    const facts = { ip: '203.0.113.9', user_agent: 'curl/8', origin: 'https://app.example' };
    const hidden = { ip: null, user_agent: null, origin: null };
    const byAuthor = equals('user', AUTHOR.user!);
    for (const [user, expected] of [
      [AUTHOR.user, facts],
      ['0190a5c0-0000-7000-8000-0000000000ff', hidden],
      [null, hidden],
    ] as const) {
      const visibility: HistoryVisibility = { user, collections: [readable] };
      const page = await persistence.activity.activity({ ...ALL, filter: byAuthor }, visibility);
      assert.ok(page.records.length > 0, String(user));
      for (const { ip, user_agent, origin } of page.records) {
        assert.equal({ ip, user_agent, origin }, expected, String(user));
      }
      const probe = await persistence.activity.activity(
        { ...ALL, filter: equals('ip', '203.0.113.9') },
        visibility,
      );
      assert.is(probe.filterCount, expected === facts ? page.records.length : 0, String(user));
    }
  });

  test('queries filter, sort and page; counts follow', async ({ persistence, cargos }) => {
    await seed(persistence, cargos);
    await persistence.items.write((writer) => writer.update(cargos, [2], { temperature: 3 }), AUTHOR);
    const page = await persistence.activity.activity(
      {
        filter: equals('action', 'create'),
        sort: [{ field: 'id', direction: 'desc' }],
        limit: 1,
        offset: 1,
        count: { total: true, filtered: true },
      },
      'all',
    );
    assert.is(page.records.length, 1);
    assert.is(page.totalCount, 3);
    assert.is(page.filterCount, 2);
    const all = await persistence.activity.activity(
      { ...ALL, sort: [{ field: 'id', direction: 'asc' }] },
      'all',
    );
    assert.is(page.records[0]!.id, all.records[0]!.id);
    assert.is(typeof page.records[0]!.id, 'number');
  });

  test('pruning deletes old entries in batches, with their revisions', async ({ persistence, cargos }) => {
    await seed(persistence, cargos);
    assert.is(await persistence.activity.prune(new Date(Date.now() - 60_000), 10), 0);
    assert.is(await persistence.activity.prune(new Date(Date.now() + 60_000), 1), 1);
    assert.is((await persistence.activity.revisions(ALL, 'all')).totalCount, 1);
    assert.is(await persistence.activity.prune(new Date(Date.now() + 60_000), 10), 1);
    assert.is((await persistence.activity.activity(ALL, 'all')).totalCount, 0);
    assert.is((await persistence.activity.revisions(ALL, 'all')).totalCount, 0);
  });

  return test;
}

function byItem(a: { item: unknown }, b: { item: unknown }): number {
  return String(a.item).localeCompare(String(b.item));
}
