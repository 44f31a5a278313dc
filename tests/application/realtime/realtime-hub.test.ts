import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { InProcessItemJson } from '../../../src/adapters/realtime/in-process-item-json.ts';
import type {
  SubscriptionEnd,
  SubscriptionEvent,
  SubscriptionSink,
} from '../../../src/application/realtime/item-subscriptions.ts';
import { RealtimeHub } from '../../../src/application/realtime/realtime-hub.ts';
import type { Accountability } from '../../../src/domain/accountability.ts';
import { Permission } from '../../../src/domain/permissions/permission.ts';
import type { RawItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { FakeItemEventFeed, ManualTicker } from '../../support/fakes/fake-item-event-feed.ts';
import {
  CALLER,
  LIMITS,
  PARCEL_ROWS,
  PARCELS,
  ROLE,
  readFixture,
  refusedWith,
  USER,
} from '../items/read-fixture.ts';

type Received = { events: SubscriptionEvent[]; ends: SubscriptionEnd[] };

function recordingSink(): SubscriptionSink & Received {
  const events: SubscriptionEvent[] = [];
  const ends: SubscriptionEnd[] = [];
  return { events, ends, send: (event) => events.push(event), end: (end) => ends.push(end) };
}

async function hubFixture() {
  const fixture = await readFixture();
  const feed = new FakeItemEventFeed();
  const ticker = new ManualTicker();
  const { schema } = fixture.persistence;
  const hub = new RealtimeHub(
    schema,
    fixture.rules,
    fixture.listItems,
    feed,
    null,
    new InProcessItemJson(),
    fixture.clock,
    LIMITS,
    ticker,
  );
  /** Who each subscription's caller() answers now: a test changes it to suspend or log out. */
  const current = new Map<string, Accountability | null>();
  async function subscribe(who: Accountability, query: RawItemQuery = {}) {
    const name = randomUUID();
    current.set(name, who);
    const sink = recordingSink();
    const subscription = await hub.subscribe(
      { collection: PARCELS, query, caller: async () => current.get(name) ?? null },
      sink,
    );
    return { sink, subscription, revoke: () => current.set(name, null) };
  }
  return { ...fixture, feed, ticker, hub, subscribe };
}

const row = (id: number) => ({ ...PARCEL_ROWS.find((parcel) => parcel.id === id)! });
const items = (event: SubscriptionEvent) => JSON.parse(event.data) as Array<Record<string, unknown>>;

const hub = suite('RealtimeHub');

hub('init is the list page for the same query; position is the log position', async () => {
  const f = await hubFixture();
  await f.grant();
  const { subscription } = await f.subscribe(CALLER.ada, { fields: ['id'], sort: ['id'] });
  assert.equal(
    JSON.parse(subscription.init ?? 'null'),
    [1, 2, 3, 4, 5].map((id) => ({ id })),
  );
  assert.is(subscription.position, '0');
});

hub("init is read as the subscription's work, on the primary, where its position was taken", async () => {
  const f = await hubFixture();
  await f.grant();
  const works: unknown[] = [];
  const list = f.listItems;
  const hub = new RealtimeHub(
    f.persistence.schema,
    f.rules,
    {
      execute: (caller, request) => {
        works.push(caller.work);
        return list.execute(caller, request);
      },
    } as typeof list,
    f.feed,
    null,
    new InProcessItemJson(),
    f.clock,
    LIMITS,
    f.ticker,
  );
  const work = { kind: 'read', caller: `user ${USER.ada}`, readsOnly: true } as const;
  const sink = recordingSink();
  await hub.subscribe({ collection: PARCELS, query: {}, caller: async () => CALLER.ada, work }, sink);
  await hub.subscribe({ collection: PARCELS, query: {}, caller: async () => CALLER.ada }, sink);
  assert.equal(works, [{ ...work, readsOnly: false }, undefined]);
});

hub(
  'create, update and delete reach a subscriber who may read the row, shaped as a list shapes it',
  async () => {
    const f = await hubFixture();
    await f.grant();
    const { sink } = await f.subscribe(CALLER.ada, { fields: ['id', 'label'] });
    f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6, label: 'New' });
    f.feed.emit(PARCELS, 6, { ...row(1), id: 6, label: 'New' }, { ...row(1), id: 6, label: 'Newer' });
    f.feed.emit(PARCELS, 6, { ...row(1), id: 6, label: 'Newer' }, null);
    await f.hub.settled();
    assert.equal(
      sink.events.map((event) => [event.event, event.id, items(event)]),
      [
        ['create', '1', [{ id: 6, label: 'New' }]],
        ['update', '2', [{ id: 6, label: 'Newer' }]],
        ['delete', '3', [6]],
      ],
    );
  },
);

hub(
  'rows outside the read rule are never delivered; leaving the view is a delete, entering a create',
  async () => {
    const f = await hubFixture();
    await f.grant({ permissions: { owner: { _eq: '$CURRENT_USER' } } });
    const { sink } = await f.subscribe(CALLER.ada, { fields: ['id'] });
    const bobs = { ...row(2) };
    f.feed.emit(PARCELS, 2, bobs, { ...bobs, label: 'changed' });
    f.feed.emit(PARCELS, 2, bobs, { ...bobs, owner: USER.ada });
    f.feed.emit(PARCELS, 2, { ...bobs, owner: USER.ada }, { ...bobs, owner: USER.bob });
    f.feed.emit(PARCELS, 9, null, { ...bobs, id: 9 });
    await f.hub.settled();
    assert.equal(
      sink.events.map((event) => [event.event, items(event)]),
      [
        ['create', [{ id: 2 }]],
        ['delete', [2]],
      ],
    );
  },
);

hub('the subscription filter narrows events like the read rule', async () => {
  const f = await hubFixture();
  await f.grant();
  const { sink } = await f.subscribe(CALLER.ada, { fields: ['id'], filter: { region: { _eq: 'north' } } });
  f.feed.emit(PARCELS, 2, row(2), { ...row(2), weight: 1 });
  f.feed.emit(PARCELS, 2, row(2), { ...row(2), region: 'north' });
  await f.hub.settled();
  assert.equal(
    sink.events.map((event) => event.event),
    ['create'],
  );
});

hub('search narrows events as it narrows the list', async () => {
  const f = await hubFixture();
  await f.grant();
  const { sink } = await f.subscribe(CALLER.ada, { fields: ['id'], search: 'needle' });
  f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 1 });
  f.feed.emit(PARCELS, 4, row(4), { ...row(4), weight: 1 });
  await f.hub.settled();
  assert.equal(sink.events.map(items), [[{ id: 1 }]]);
});

hub('fields narrow as a list narrows * and field masks apply per row', async () => {
  const f = await hubFixture();
  await f.grant({ fields: ['id', 'label'] });
  await f.grant({ fields: ['notes'], permissions: { owner: { _eq: '$CURRENT_USER' } } });
  const { sink } = await f.subscribe(CALLER.ada);
  f.feed.emit(PARCELS, 1, row(1), { ...row(1), label: 'Alpha' });
  f.feed.emit(PARCELS, 2, row(2), { ...row(2), label: 'Beta' });
  await f.hub.settled();
  assert.equal(sink.events.map(items), [
    [{ id: 1, label: 'Alpha', notes: 'needle alpha' }],
    [{ id: 2, label: 'Beta', notes: null }],
  ]);
});

hub(
  'an update of only fields a subscriber may not read is not told to them; the admin and a full reader are told',
  async () => {
    const f = await hubFixture();
    await f.grant({ fields: ['id', 'label'] });
    await f.grant({ fields: ['notes'], permissions: { owner: { _eq: '$CURRENT_USER' } } });
    await f.grant({ role: ROLE.auditor });
    const partial = await f.subscribe(CALLER.ada);
    const narrowed = await f.subscribe(CALLER.ada, { fields: ['id'] });
    const full = await f.subscribe(CALLER.dan);
    const admin = await f.subscribe(CALLER.admin);
    const changes: Array<{ name: string; id: number; after: Record<string, unknown>; partial: boolean }> = [
      { name: 'weight, hidden', id: 1, after: { weight: 11 }, partial: false },
      { name: 'notes, hidden on a row Ada does not own', id: 2, after: { notes: 'changed' }, partial: false },
      { name: 'label, readable', id: 1, after: { label: 'Alpha' }, partial: true },
      { name: 'nothing at all: tells nothing hidden', id: 4, after: {}, partial: true },
      { name: 'owner, hidden, but it shows notes', id: 2, after: { owner: USER.ada }, partial: true },
    ];
    for (const { id, after } of changes) f.feed.emit(PARCELS, id, row(id), { ...row(id), ...after });
    await f.hub.settled();
    const told = (sink: Received) => sink.events.map((event) => event.id);
    const ids = (only: (change: (typeof changes)[number]) => boolean) =>
      changes.flatMap((change, index) => (only(change) ? [String(index + 1)] : []));
    assert.equal(
      told(partial.sink),
      ids((change) => change.partial),
    );
    assert.equal(
      told(narrowed.sink),
      ids((change) => change.partial),
      'whatever the selection shows',
    );
    assert.equal(
      told(full.sink),
      ids(() => true),
    );
    assert.equal(
      told(admin.sink),
      ids(() => true),
    );
    assert.equal(items(partial.sink.events.at(-1)!), [
      { id: 2, label: 'Beta barrels', notes: 'needle beta' },
    ]);
  },
);

hub('a field the caller may not read is refused at subscribe, as a list refuses it', async () => {
  const f = await hubFixture();
  await f.grant({ fields: ['id'] });
  await refusedWith(f.subscribe(CALLER.ada, { fields: ['notes'] }), 'FORBIDDEN', 'notes');
  await refusedWith(f.subscribe(CALLER.carol), 'FORBIDDEN');
});

hub(
  'a caller who may not read the collection is refused FORBIDDEN whatever the query, as for a missing one',
  async () => {
    const f = await hubFixture();
    for (const query of [
      {},
      { fields: ['no_such_field'] },
      { filter: { no_such_field: { _eq: 1 } } },
      { sort: ['no_such_field'] },
      { limit: 'many' },
      { aggregate: { count: ['*'] } },
    ]) {
      for (const collection of [PARCELS, 'no_such_collection']) {
        const subscribing = f.hub.subscribe(
          { collection, query, caller: async () => CALLER.carol },
          recordingSink(),
        );
        await refusedWith(subscribing, 'FORBIDDEN').catch((error: Error) => {
          throw new Error(`${collection} ${JSON.stringify(query)}: ${error.message}`);
        });
      }
    }
  },
);

hub('an aggregate or groupBy is refused at subscribe, never answered with the rows instead', async () => {
  const f = await hubFixture();
  await f.grant({ fields: ['id', 'label'] });
  for (const query of [
    { aggregate: { count: ['*'] } },
    { groupBy: ['label'] },
    { groupBy: 'label', aggregate: { count: '*' } },
    // A field the caller may not read gets the same answer: the refusal names the parameter, nothing else.
    { aggregate: { max: ['notes'] } },
  ]) {
    await refusedWith(f.subscribe(CALLER.ada, query), 'INVALID_QUERY').catch((error: Error) => {
      throw new Error(`${JSON.stringify(query)}: ${error.message}`);
    });
  }
});

hub(
  'a rule change applies at the next recheck: events stop and the subscription ends FORBIDDEN',
  async () => {
    const f = await hubFixture();
    const id = randomUUID();
    await f.persistence.permissions.save(
      new Permission({
        id,
        role: ROLE.clerk,
        collection: PARCELS,
        action: 'read',
        permissions: null,
        validation: null,
        presets: null,
        fields: ['*'],
      }),
    );
    const { sink } = await f.subscribe(CALLER.ada, { fields: ['id'] });
    await f.persistence.permissions.delete(id);
    f.ticker.tick();
    await f.hub.settled();
    f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
    await f.hub.settled();
    assert.equal(sink.events, []);
    assert.equal(
      sink.ends.map((end) => end.reason),
      ['FORBIDDEN'],
    );
  },
);

hub(
  'a suspended or logged-out caller is ended UNAUTHENTICATED at the next tick (at most a second)',
  async () => {
    const f = await hubFixture();
    await f.grant();
    const { sink, revoke } = await f.subscribe(CALLER.ada, { fields: ['id'] });
    revoke();
    f.ticker.tick();
    await f.hub.settled();
    f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
    await f.hub.settled();
    assert.equal(sink.events, []);
    assert.equal(
      sink.ends.map((end) => end.reason),
      ['UNAUTHENTICATED'],
    );
  },
);

hub('a lost feed ends every subscription with RESYNC; close stops delivery', async () => {
  const f = await hubFixture();
  await f.grant();
  const first = await f.subscribe(CALLER.ada, { fields: ['id'] });
  const second = await f.subscribe(CALLER.bob, { fields: ['id'] });
  second.subscription.close();
  f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
  f.feed.lose();
  await f.hub.settled();
  assert.is(first.sink.events.length, 1);
  assert.equal(
    first.sink.ends.map((end) => end.reason),
    ['RESYNC'],
  );
  assert.equal(second.sink.events, []);
  assert.equal(second.sink.ends, []);
});

hub('resuming replays the events after the position, judged now, with no init', async () => {
  const f = await hubFixture();
  await f.grant();
  f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
  f.feed.emit(PARCELS, 2, row(2), { ...row(2), weight: 3 });
  const sink = recordingSink();
  const subscription = await f.hub.subscribe(
    { collection: PARCELS, query: { fields: ['id'] }, caller: async () => CALLER.ada, resumeAfter: '1' },
    sink,
  );
  await f.hub.settled();
  assert.is(subscription.init, null);
  assert.equal(
    sink.events.map((event) => event.id),
    ['2'],
  );
});

hub('resuming replays every event after the position, however many pages of the log they fill', async () => {
  const f = await hubFixture();
  await f.grant();
  for (let weight = 0; weight < 10_005; weight++) f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight });
  const sink = recordingSink();
  await f.hub.subscribe(
    { collection: PARCELS, query: { fields: ['id'] }, caller: async () => CALLER.ada, resumeAfter: '1' },
    sink,
  );
  await f.hub.settled();
  assert.equal(sink.ends, []);
  assert.is(sink.events.length, 10_004);
  assert.equal([sink.events[0]?.id, sink.events.at(-1)?.id], ['2', '10005']);
});

hub('a change that commits while a resumption replays reaches it once, in order', async () => {
  const f = await hubFixture();
  await f.grant();
  await f.subscribe(CALLER.bob, { fields: ['id'] });
  f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
  const since = f.feed.since.bind(f.feed);
  // The change commits between the replay's read and the live feed's: both see it.
  f.feed.since = async (after, limit) => {
    f.feed.since = since;
    f.feed.emit(PARCELS, 2, row(2), { ...row(2), weight: 3 });
    return since(after, limit);
  };
  const sink = recordingSink();
  await f.hub.subscribe(
    { collection: PARCELS, query: { fields: ['id'] }, caller: async () => CALLER.ada, resumeAfter: '0' },
    sink,
  );
  f.feed.emit(PARCELS, 3, row(3), { ...row(3), weight: 4 });
  await f.hub.settled();
  assert.equal(
    sink.events.map((event) => event.id),
    ['1', '2', '3'],
  );
});

hub(
  'a replay the log cannot answer ends the subscription with RESYNC rather than leaving it waiting',
  async () => {
    const f = await hubFixture();
    await f.grant();
    f.feed.since = async () => {
      throw new Error('the log is unreachable');
    };
    const sink = recordingSink();
    await f.hub.subscribe(
      { collection: PARCELS, query: { fields: ['id'] }, caller: async () => CALLER.ada, resumeAfter: '1' },
      sink,
    );
    await f.hub.settled();
    assert.equal(sink.events, []);
    assert.equal(
      sink.ends.map((end) => end.reason),
      ['RESYNC'],
    );
  },
);

hub('alike views share one message per event; a view with another rule is judged apart', async () => {
  const f = await hubFixture();
  await f.grant({ permissions: { owner: { _eq: '$CURRENT_USER' } } });
  const first = await f.subscribe(CALLER.ada, { fields: ['id'] });
  const second = await f.subscribe(CALLER.ada, { fields: ['id'] });
  const other = await f.subscribe(CALLER.bob, { fields: ['id'] });
  f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
  f.feed.emit(PARCELS, 2, row(2), { ...row(2), weight: 2 });
  await f.hub.settled();
  assert.is(first.sink.events.length, 1);
  assert.is(first.sink.events[0], second.sink.events[0]);
  assert.equal(other.sink.events.map(items), [[{ id: 2 }]]);
});

hub('batches that wait behind a recheck are delivered after it, in log order', async () => {
  const f = await hubFixture();
  await f.grant();
  const { sink, revoke } = await f.subscribe(CALLER.ada, { fields: ['id'] });
  f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
  f.feed.emit(PARCELS, 2, row(2), { ...row(2), weight: 2 });
  revoke();
  f.ticker.tick();
  f.feed.emit(PARCELS, 3, row(3), { ...row(3), weight: 2 });
  await f.hub.settled();
  assert.equal(
    sink.events.map((event) => event.id),
    ['1', '2'],
  );
  assert.equal(
    sink.ends.map((end) => end.reason),
    ['UNAUTHENTICATED'],
  );
});

hub('a change at or before the position of an init is in that init, and is not sent after it', async () => {
  const f = await hubFixture();
  await f.grant();
  // A subscription whose rights recheck waits until the gate opens: the changes queue behind it meanwhile.
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let asked = 0;
  const waiting = recordingSink();
  await f.hub.subscribe(
    {
      collection: PARCELS,
      query: { fields: ['id'] },
      caller: async () => {
        if (asked++ > 0) await gate;
        return CALLER.ada;
      },
    },
    waiting,
  );
  f.ticker.tick();
  f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
  const late = await f.subscribe(CALLER.ada, { fields: ['id'] });
  assert.is(late.subscription.position, '1');
  open();
  await f.hub.settled();
  f.feed.emit(PARCELS, 7, null, { ...row(1), id: 7 });
  await f.hub.settled();
  assert.equal(
    waiting.events.map((event) => event.id),
    ['1', '2'],
  );
  assert.equal(
    late.sink.events.map((event) => event.id),
    ['2'],
  );
});

hub(
  "a view that cannot judge an event ends its own subscription (RESYNC), never others' events in the batch",
  async () => {
    const f = await hubFixture();
    await f.grant();
    // Judged first: its filter names a field the schema is about to lose, so evaluating it throws.
    const broken = await f.subscribe(CALLER.bob, { fields: ['id'], filter: { region: { _eq: 'north' } } });
    const plain = await f.subscribe(CALLER.ada, { fields: ['id'] });
    await f.persistence.schemaEditor.dropField(PARCELS, 'region');
    f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
    f.feed.emit(PARCELS, 2, row(2), { ...row(2), weight: 3 });
    await f.hub.settled();
    f.feed.emit(PARCELS, 3, row(3), { ...row(3), weight: 4 });
    await f.hub.settled();
    assert.equal(
      plain.sink.events.map((event) => event.id),
      ['1', '2', '3'],
    );
    assert.equal(plain.sink.ends, []);
    assert.equal(broken.sink.events, []);
    assert.equal(
      broken.sink.ends.map((end) => end.reason),
      ['RESYNC'],
    );
  },
);

hub(
  'a schema change that leaves a query naming a lost field ends it RESYNC at the recheck, not FORBIDDEN',
  async () => {
    const f = await hubFixture();
    await f.grant();
    const filtered = await f.subscribe(CALLER.admin, {
      fields: ['id'],
      filter: { region: { _eq: 'north' } },
    });
    const selecting = await f.subscribe(CALLER.admin, { fields: ['id', 'region'] });
    // A role that reads every field is told as its list would tell it (400, an unknown field).
    const role = await f.subscribe(CALLER.bob, { fields: ['id'], filter: { region: { _eq: 'north' } } });
    const plain = await f.subscribe(CALLER.ada, { fields: ['id'] });
    await f.persistence.schemaEditor.dropField(PARCELS, 'region');
    f.ticker.tick();
    await f.hub.settled();
    for (const { sink } of [filtered, selecting, role]) {
      assert.equal(
        sink.ends.map((end) => end.reason),
        ['RESYNC'],
      );
      assert.match(sink.ends[0]!.message, /no longer fits the collection/);
    }
    assert.equal(plain.sink.ends, []);
  },
);

hub('a dropped collection ends its subscriptions saying so, not that a right was lost', async () => {
  const f = await hubFixture();
  await f.grant();
  const { sink } = await f.subscribe(CALLER.admin, { fields: ['id'] });
  await f.persistence.schemaEditor.dropCollection(PARCELS);
  f.ticker.tick();
  await f.hub.settled();
  assert.equal(sink.ends, [{ reason: 'FORBIDDEN', message: 'The collection no longer exists.' }]);
});

hub.run();
