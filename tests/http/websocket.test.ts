import { once } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CLOSE } from '../../src/adapters/http/websocket/directus-websocket.ts';
import { invalidToken, serviceUnavailable, tokenExpired, userSuspended } from '../../src/domain/errors.ts';
import { CALLER, PARCEL_ROWS, PARCELS } from '../application/items/read-fixture.ts';
import { RecordingMetrics } from '../support/fakes/recording-metrics.ts';
import { websocketFixture } from '../support/websocket-fixture.ts';

const ws = suite('/websocket (Directus protocol)');
const row = (id: number) => ({ ...PARCEL_ROWS.find((parcel) => parcel.id === id)! });

ws(
  'a subscription the database fails: its error, counted as a request failure is (docs/api.md §11)',
  async () => {
    const metrics = new RecordingMetrics();
    const unreachable = serviceUnavailable();
    unreachable.cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const f = await websocketFixture({ subscribeFails: unreachable, metrics });
    try {
      const socket = await f.connect();
      socket.send(JSON.stringify({ type: 'auth', access_token: 'ada-token' }));
      await f.next(socket, (m) => m.type === 'auth');
      socket.send(JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 's1' }));
      assert.equal(await f.next(socket, (m) => m.type === 'subscribe'), {
        type: 'subscribe',
        status: 'error',
        error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is unavailable. Try again shortly.' },
        uid: 's1',
      });
      assert.equal(metrics.databaseFailures, ['unreachable']);
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws('auth, subscribe → init, then create / update / delete, ping → pong, unsubscribe', async () => {
  const f = await websocketFixture();
  try {
    const socket = await f.connect();
    socket.send(JSON.stringify({ type: 'auth', access_token: 'ada-token' }));
    assert.equal(await f.next(socket, (m) => m.type === 'auth'), { type: 'auth', status: 'ok' });
    socket.send(
      JSON.stringify({
        type: 'subscribe',
        collection: PARCELS,
        uid: 's1',
        query: { fields: ['id'], sort: ['id'] },
      }),
    );
    const init = await f.next(socket, (m) => m.event === 'init');
    assert.equal(init, {
      type: 'subscription',
      event: 'init',
      data: [1, 2, 3, 4, 5].map((id) => ({ id })),
      uid: 's1',
    });
    f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
    f.feed.emit(PARCELS, 6, { ...row(1), id: 6 }, { ...row(1), id: 6, weight: 1 });
    f.feed.emit(PARCELS, 6, { ...row(1), id: 6, weight: 1 }, null);
    assert.equal(await f.next(socket, (m) => m.event === 'create'), {
      type: 'subscription',
      event: 'create',
      data: [{ id: 6 }],
      uid: 's1',
    });
    assert.equal((await f.next(socket, (m) => m.event === 'update')).data, [{ id: 6 }]);
    assert.equal((await f.next(socket, (m) => m.event === 'delete')).data, [6]);
    socket.send(JSON.stringify({ type: 'ping' }));
    assert.equal(await f.next(socket, (m) => m.type === 'pong'), { type: 'pong' });
    socket.send(JSON.stringify({ type: 'unsubscribe', uid: 's1' }));
    assert.equal(await f.next(socket, (m) => m.uid === 's1'), {
      type: 'subscription',
      event: 'unsubscribe',
      uid: 's1',
    });
    f.feed.emit(PARCELS, 7, null, { ...row(1), id: 7 });
    assert.equal(await f.delivered(socket), [], 'nothing of s1 after its unsubscribe');
    socket.close();
  } finally {
    await f.close();
  }
});

ws(
  'unsubscribe is confirmed as Directus confirms it: its uid as given, an unknown one, none (all)',
  async () => {
    const f = await websocketFixture({ subscriptionsPerConnection: 3 });
    try {
      const socket = await f.connect('?access_token=ada-token');
      const subscribe = async (uid: string | number) => {
        socket.send(
          JSON.stringify({ type: 'subscribe', collection: PARCELS, uid, query: { fields: ['id'] } }),
        );
        await f.next(socket, (m) => m.uid === uid && m.event === 'init');
      };
      const confirmation = (uid?: string | number) => ({
        type: 'subscription',
        event: 'unsubscribe',
        ...(uid === undefined ? {} : { uid }),
      });
      /** What the socket received by the time a change has been delivered and a ping answered. */
      const afterAChange = async (id: number) => {
        f.feed.emit(PARCELS, id, null, { ...row(1), id });
        return (await f.delivered(socket)).map((m) => [m.uid, m.event]);
      };

      // A number uid is echoed as a number; the other subscription goes on.
      await subscribe(8);
      await subscribe('kept');
      socket.send(JSON.stringify({ type: 'unsubscribe', uid: 8 }));
      assert.equal(await f.next(socket, (m) => m.event === 'unsubscribe'), confirmation(8));
      assert.equal(await afterAChange(6), [['kept', 'create']]);

      // A uid that names no subscription (never subscribed, or already stopped) is confirmed all the same.
      for (const uid of ['never', 8]) {
        socket.send(JSON.stringify({ type: 'unsubscribe', uid }));
        assert.equal(await f.next(socket, (m) => m.event === 'unsubscribe'), confirmation(uid));
      }

      // Without a uid: every subscription stops, and the confirmation carries no uid.
      await subscribe('second');
      socket.send(JSON.stringify({ type: 'unsubscribe' }));
      assert.equal(await f.next(socket, (m) => m.event === 'unsubscribe'), confirmation());
      assert.equal(await afterAChange(7), []);

      // The uids are free again.
      await subscribe('kept');
      assert.equal(await afterAChange(9), [['kept', 'create']]);
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws('a subscribe under a uid already subscribed replaces that subscription, as Directus does', async () => {
  const f = await websocketFixture({ subscriptionsPerConnection: 1 });
  try {
    const socket = await f.connect('?access_token=ada-token');
    const subscribe = (query: Record<string, unknown>) =>
      socket.send(JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 's', query }));
    subscribe({ fields: ['id'] });
    await f.next(socket, (m) => m.uid === 's' && m.event === 'init');
    // Replaced, not added: one subscription per connection is enough for it.
    subscribe({ fields: ['id', 'weight'], filter: { id: { _eq: 6 } } });
    assert.equal((await f.next(socket, (m) => m.uid === 's' && m.event === 'init')).data, []);
    f.received(socket).splice(0);
    f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
    f.feed.emit(PARCELS, 7, null, { ...row(1), id: 7 });
    assert.equal(
      (await f.delivered(socket)).filter((m) => m.uid === 's').map((m) => [m.event, m.data]),
      [['create', [{ id: 6, weight: row(1).weight }]]],
      'only the new subscription is told, once',
    );
    // A refused replacement leaves none: the old one stopped when the new one was asked for.
    subscribe({ fields: ['no_such_field'] });
    assert.is((await f.next(socket, (m) => m.uid === 's' && m.type === 'subscribe')).status, 'error');
    f.received(socket).splice(0);
    f.feed.emit(PARCELS, 8, null, { ...row(1), id: 8 });
    assert.equal(
      (await f.delivered(socket)).filter((m) => m.uid === 's'),
      [],
    );
    socket.close();
  } finally {
    await f.close();
  }
});

ws('a replacement refused for its "collection" leaves none either', async () => {
  const f = await websocketFixture();
  try {
    const socket = await f.connect('?access_token=ada-token');
    for (const collection of [undefined, 7]) {
      socket.send(
        JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 's', query: { fields: ['id'] } }),
      );
      await f.next(socket, (m) => m.uid === 's' && m.event === 'init');
      socket.send(JSON.stringify({ type: 'subscribe', collection, uid: 's' }));
      const refusal = await f.next(socket, (m) => m.uid === 's' && m.type === 'subscribe');
      assert.is((refusal.error as { code: string }).code, 'INVALID_PAYLOAD');
      f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
      assert.equal(await f.delivered(socket), [], String(collection));
    }
    socket.close();
  } finally {
    await f.close();
  }
});

ws(
  'subscriptions without a uid are each their own, as Directus keeps them; unsubscribe without one stops all',
  async () => {
    const f = await websocketFixture({ subscriptionsPerConnection: 2 });
    try {
      const socket = await f.connect('?access_token=ada-token');
      for (const id of [6, 7]) {
        socket.send(
          JSON.stringify({
            type: 'subscribe',
            collection: PARCELS,
            query: { fields: ['id'], filter: { id: { _eq: id } } },
          }),
        );
        assert.equal(await f.next(socket, (m) => m.event === 'init'), {
          type: 'subscription',
          event: 'init',
          data: [],
        });
      }
      f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
      f.feed.emit(PARCELS, 7, null, { ...row(1), id: 7 });
      assert.equal(
        (await f.delivered(socket)).map((m) => [m.event, m.data, 'uid' in m]),
        [
          ['create', [{ id: 6 }], false],
          ['create', [{ id: 7 }], false],
        ],
      );
      socket.send(JSON.stringify({ type: 'unsubscribe' }));
      assert.equal(await f.next(socket, (m) => m.event === 'unsubscribe'), {
        type: 'subscription',
        event: 'unsubscribe',
      });
      f.feed.emit(PARCELS, 6, { ...row(1), id: 6 }, { ...row(1), id: 6, weight: 1 });
      assert.equal(await f.delivered(socket), []);
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws('"event" narrows a subscription to one kind of change, as Directus’s subscribe message does', async () => {
  const f = await websocketFixture({ subscriptionsPerConnection: 3 });
  try {
    const socket = await f.connect('?access_token=ada-token');
    for (const event of ['create', 'update', 'delete']) {
      socket.send(
        JSON.stringify({
          type: 'subscribe',
          collection: PARCELS,
          uid: event,
          event,
          query: { fields: ['id'] },
        }),
      );
      // The init still carries the rows: a client that asked for one kind of change may ignore them.
      assert.equal((await f.next(socket, (m) => m.uid === event && m.event === 'init')).data, [
        ...[1, 2, 3, 4, 5].map((id) => ({ id })),
      ]);
    }
    f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
    f.feed.emit(PARCELS, 6, { ...row(1), id: 6 }, { ...row(1), id: 6, weight: 1 });
    f.feed.emit(PARCELS, 6, { ...row(1), id: 6, weight: 1 }, null);
    const changes = (await f.delivered(socket))
      .filter((m) => m.type === 'subscription' && m.event !== 'init')
      .map((m) => [m.uid, m.event]);
    assert.equal(changes, [
      ['create', 'create'],
      ['update', 'update'],
      ['delete', 'delete'],
    ]);
    socket.close();
  } finally {
    await f.close();
  }
});

ws('a subscribe with "event" and "limit": 0 has an empty init, and its changes all the same', async () => {
  const f = await websocketFixture();
  try {
    const socket = await f.connect('?access_token=ada-token');
    socket.send(
      JSON.stringify({
        type: 'subscribe',
        collection: PARCELS,
        uid: 'u',
        event: 'update',
        query: { fields: ['id'], limit: 0 },
      }),
    );
    // Directus's init for an `event` carries no rows (docs/decisions/0067): `limit: 0` asks for none here.
    assert.equal(await f.next(socket, (m) => m.event === 'init'), {
      type: 'subscription',
      event: 'init',
      data: [],
      uid: 'u',
    });
    f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 99 });
    assert.equal((await f.next(socket, (m) => m.event === 'update')).data, [{ id: 1 }]);
    socket.close();
  } finally {
    await f.close();
  }
});

ws('a subscribe naming an unknown "event" or one "item" is refused, never read as every change', async () => {
  const f = await websocketFixture({ subscriptionsPerConnection: 10 });
  try {
    const socket = await f.connect('?access_token=ada-token');
    const refusals = [
      { event: 'init' },
      { event: ['create'] },
      { event: 'CREATE' },
      { item: 1 },
      { item: '1', event: 'update' },
    ];
    for (const [index, members] of refusals.entries()) {
      socket.send(JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: index, ...members }));
      const answer = await f.next(socket, (m) => m.uid === index);
      assert.equal(
        [answer.type, answer.status, (answer.error as { code: string }).code],
        ['subscribe', 'error', 'INVALID_PAYLOAD'],
        JSON.stringify(members),
      );
    }
    // Nothing was subscribed: a change reaches nobody.
    f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
    assert.equal(
      (await f.delivered(socket)).filter((m) => m.type === 'subscription'),
      [],
    );
    socket.close();
  } finally {
    await f.close();
  }
});

ws('a token in the URL authenticates; a bad one closes with 4003', async () => {
  const f = await websocketFixture();
  try {
    const good = await f.connect('?access_token=ada-token');
    good.send(
      JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 'a', query: { fields: ['id'] } }),
    );
    await f.next(good, (m) => m.event === 'init');
    good.close();
    const bad = await f.connect('?access_token=nope');
    const [code] = (await once(bad, 'close')) as [number];
    assert.is(code, CLOSE.authFailed);
  } finally {
    await f.close();
  }
});

ws(
  'a URL token given twice or in a bracket form, or while query tokens are off, is refused at the upgrade',
  async () => {
    const refusal = {
      status: 400,
      body: {
        errors: [
          {
            message: 'Pass access_token once, as a plain parameter.',
            extensions: { code: 'INVALID_PAYLOAD', field: 'access_token' },
          },
        ],
      },
    };
    const f = await websocketFixture({ publicCaller: CALLER.anonymous });
    try {
      for (const query of [
        '?access_token=ada-token&access_token=ada-token',
        '?access_token[]=ada-token',
        '?access_token[a]=ada-token',
        '?access_token%5B%5D=ada-token',
      ]) {
        assert.equal(await f.refused(query), refusal, query);
      }
    } finally {
      await f.close();
    }
    const off = await websocketFixture({ publicCaller: CALLER.anonymous, allowQueryToken: false });
    try {
      const answer = await off.refused('?access_token=ada-token');
      assert.is(answer.status, 400);
      assert.is(
        (answer.body as typeof refusal.body).errors[0]!.extensions.field,
        'access_token',
        'refused, not run as the public caller',
      );
      (await off.connect()).close();
    } finally {
      await off.close();
    }
  },
);

ws(
  'an address past its connections is refused 429 at the upgrade, in the contract error shape, with Retry-After',
  async () => {
    const f = await websocketFixture({ publicCaller: CALLER.anonymous });
    try {
      const open = [];
      for (let index = 0; index < 10; index++) open.push(await f.connect());
      const answer = await f.refused('');
      assert.is(answer.status, 429);
      assert.is(
        (answer.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code,
        'TOO_MANY_REQUESTS',
      );
      assert.is(answer.retryAfter, '1');
      for (const socket of open) socket.close();
    } finally {
      await f.close();
    }
  },
);

ws(
  'connections are counted by the address http.trustProxy names, as every per-address limit of the routes',
  async () => {
    const forwardedFor = (address: string) => ({ 'X-Forwarded-For': `203.0.113.9, ${address}` });
    const trusting = await websocketFixture({ publicCaller: CALLER.anonymous, trustProxy: true });
    try {
      const open = [];
      // Ten clients behind the proxy, each its own address: none is refused for the others'.
      for (let index = 0; index < 10; index++)
        open.push(await trusting.connect('', forwardedFor('10.0.0.1')));
      open.push(await trusting.connect('', forwardedFor('10.0.0.2')));
      assert.is((await trusting.refused('', forwardedFor('10.0.0.1'))).status, 429);
      for (const socket of open) socket.close();
    } finally {
      await trusting.close();
    }
    // Not trusted, the header is anyone's to write: the peer's address is counted.
    const direct = await websocketFixture({ publicCaller: CALLER.anonymous });
    try {
      const open = [];
      for (let index = 0; index < 10; index++)
        open.push(await direct.connect('', forwardedFor(`10.0.1.${index}`)));
      assert.is((await direct.refused('', forwardedFor('10.0.1.99'))).status, 429);
      for (const socket of open) socket.close();
    } finally {
      await direct.close();
    }
  },
);

ws('messages sent as the socket opens wait for its credential (URL token or public caller)', async () => {
  const f = await websocketFixture({ authDelayMs: 50, publicCaller: CALLER.anonymous });
  await f.grant({ role: null });
  try {
    for (const query of ['?access_token=ada-token', '']) {
      const socket = await f.connect(query);
      for (const uid of ['a', 'b']) {
        socket.send(
          JSON.stringify({ type: 'subscribe', collection: PARCELS, uid, query: { fields: ['id'] } }),
        );
      }
      assert.is((await f.next(socket, (m) => m.uid === 'a')).event, 'init', query);
      assert.is((await f.next(socket, (m) => m.uid === 'b')).event, 'init', query);
      socket.close();
    }
  } finally {
    await f.close();
  }
});

ws('a caller without read permission gets a subscribe error, never rows', async () => {
  const f = await websocketFixture();
  try {
    const socket = await f.connect('?access_token=carol-token');
    socket.send(JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 'c' }));
    const error = await f.next(socket, (m) => m.type === 'subscribe');
    assert.equal(error, {
      type: 'subscribe',
      status: 'error',
      error: { code: 'FORBIDDEN', message: (error.error as { message: string }).message },
      uid: 'c',
    });
    socket.close();
  } finally {
    await f.close();
  }
});

ws('a revoked token ends the subscription at the next recheck', async () => {
  const f = await websocketFixture();
  try {
    const socket = await f.connect('?access_token=ada-token');
    socket.send(
      JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 'r', query: { fields: ['id'] } }),
    );
    await f.next(socket, (m) => m.event === 'init');
    f.tokens.delete('ada-token');
    f.ticker.tick();
    const end = await f.next(socket, (m) => m.type === 'subscribe');
    assert.is((end.error as { code: string }).code, 'UNAUTHENTICATED');
    socket.close();
  } finally {
    await f.close();
  }
});

ws('a suspended user ends UNAUTHENTICATED, an expired token TOKEN_EXPIRED', async () => {
  for (const [refusal, code] of [
    [userSuspended(), 'UNAUTHENTICATED'],
    [tokenExpired(), 'TOKEN_EXPIRED'],
  ] as const) {
    const f = await websocketFixture();
    try {
      const socket = await f.connect('?access_token=ada-token');
      socket.send(
        JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 's', query: { fields: ['id'] } }),
      );
      await f.next(socket, (m) => m.event === 'init');
      f.tokens.set('ada-token', refusal);
      f.ticker.tick();
      const end = await f.next(socket, (m) => m.type === 'subscribe');
      assert.is((end.error as { code: string }).code, code);
      socket.close();
    } finally {
      await f.close();
    }
  }
});

ws(
  'auth as another user applies its rights from its answer on, to the subscriptions already made',
  async () => {
    const f = await websocketFixture();
    try {
      const socket = await f.connect('?access_token=ada-token');
      socket.send(
        JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 'a', query: { fields: ['id'] } }),
      );
      await f.next(socket, (m) => m.event === 'init');
      // Carol may not read parcels: the subscription Ada made ends before the auth is answered.
      socket.send(JSON.stringify({ type: 'auth', access_token: 'carol-token' }));
      const ended = await f.next(socket, () => true);
      assert.equal(ended, {
        type: 'subscribe',
        status: 'error',
        error: { code: 'FORBIDDEN', message: 'You no longer have permission to read this collection.' },
        uid: 'a',
      });
      assert.equal(await f.next(socket, () => true), { type: 'auth', status: 'ok' });
      f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
      assert.equal(await f.delivered(socket), []);
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws(
  'an auth message with an expired token is TOKEN_EXPIRED, any other refused token AUTH_FAILED (as Directus)',
  async () => {
    for (const [refusal, code] of [
      [tokenExpired(), 'TOKEN_EXPIRED'],
      [invalidToken(), 'AUTH_FAILED'],
      [userSuspended(), 'AUTH_FAILED'],
    ] as const) {
      const f = await websocketFixture();
      try {
        const socket = await f.connect('');
        f.tokens.set('stale-token', refusal);
        socket.send(JSON.stringify({ type: 'auth', access_token: 'stale-token', uid: 'a' }));
        const answer = await f.next(socket, (m) => m.type === 'auth');
        assert.is(answer.status, 'error');
        assert.is((answer.error as { code: string }).code, code);
        assert.is(answer.uid, 'a');
        socket.close();
      } finally {
        await f.close();
      }
    }
  },
);

ws(
  "a NUL or lone surrogate anywhere in a subscription's query is INVALID_QUERY naming its place",
  async () => {
    const f = await websocketFixture();
    try {
      const socket = await f.connect('?access_token=ada-token');
      const queries: Array<[string, Record<string, unknown>, string]> = [
        [
          'lone',
          { filter: { label: { _eq: 'a\ud800' } } },
          'The value of "filter.label._eq" contains a lone surrogate.',
        ],
        [
          'nul',
          { filter: { label: { _in: ['x', 'a\u0000'] } } },
          'The value of "filter.label._in.1" contains a NUL character.',
        ],
        ['search', { search: '\udc00' }, 'The value of "search" contains a lone surrogate.'],
        [
          'key',
          { filter: { 'la\ud800bel': { _eq: 'x' } } },
          'The key "filter.la\\ud800bel" contains a lone surrogate.',
        ],
      ];
      for (const [uid, query] of queries) {
        socket.send(JSON.stringify({ type: 'subscribe', collection: PARCELS, uid, query }));
      }
      for (const [uid, , message] of queries) {
        assert.equal(await f.next(socket, (m) => m.uid === uid), {
          type: 'subscribe',
          status: 'error',
          error: { code: 'INVALID_QUERY', message },
          uid,
        });
      }
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws('subscriptions per connection and malformed messages are refused with errors', async () => {
  const f = await websocketFixture();
  try {
    const socket = await f.connect('?access_token=ada-token');
    for (const uid of ['1', '2', '3']) {
      socket.send(JSON.stringify({ type: 'subscribe', collection: PARCELS, uid, query: { fields: ['id'] } }));
    }
    const refused = await f.next(socket, (m) => m.type === 'subscribe' && m.status === 'error');
    assert.is((refused.error as { code: string }).code, 'LIMIT_EXCEEDED');
    socket.send('not json');
    const error = await f.next(socket, (m) => m.type === 'error');
    assert.is((error.error as { code: string }).code, 'INVALID_PAYLOAD');
    socket.close();
  } finally {
    await f.close();
  }
});

ws(
  'a subscribe whose query is not an object, or asks for an aggregate, is refused, never answered with rows',
  async () => {
    const f = await websocketFixture();
    try {
      const socket = await f.connect('?access_token=ada-token');
      const cases: Array<[query: unknown, code: string]> = [
        ['fields=id', 'INVALID_PAYLOAD'],
        [['id'], 'INVALID_PAYLOAD'],
        [7, 'INVALID_PAYLOAD'],
        [null, 'INVALID_PAYLOAD'],
        [{ aggregate: { count: ['*'] } }, 'INVALID_QUERY'],
        [{ groupBy: ['id'], aggregate: { count: ['*'] } }, 'INVALID_QUERY'],
      ];
      for (const [index, [query, code]] of cases.entries()) {
        const uid = `q${index}`;
        socket.send(JSON.stringify({ type: 'subscribe', collection: PARCELS, uid, query }));
        const answer = await f.next(socket, (m) => m.uid === uid);
        assert.equal(
          answer,
          {
            type: 'subscribe',
            status: 'error',
            error: { code, message: (answer.error as { message?: string } | undefined)?.message },
            uid,
          },
          JSON.stringify(query),
        );
      }
      socket.send(
        JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 'ok', query: { fields: ['id'] } }),
      );
      assert.is(
        (await f.next(socket, (m) => m.uid === 'ok')).event,
        'init',
        'the refused uids were not kept',
      );
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws(
  'a uid is a string or a number, echoed as given; another uid or a non-string type is a malformed message',
  async () => {
    const f = await websocketFixture();
    try {
      const socket = await f.connect('?access_token=ada-token');
      const texts: string[] = [];
      socket.on('message', (data) => texts.push(String(data)));
      socket.send(JSON.stringify({ type: 'ping', uid: 7 }));
      assert.equal(await f.next(socket, (m) => m.type === 'pong'), { type: 'pong', uid: 7 });
      socket.send(
        JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 8, query: { fields: ['id'] } }),
      );
      assert.is((await f.next(socket, (m) => m.event === 'init')).uid, 8);
      // The same subscription, whether its uid is written as a number or a string: subscribed again, it is
      // replaced, and the new one's messages echo the uid as it was written last.
      socket.send(
        JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: '8', query: { fields: ['id'] } }),
      );
      const again = await f.next(socket, (m) => m.event === 'init');
      assert.equal(again.uid, '8');
      for (const message of [
        { type: 'ping', uid: { a: 1 } },
        { type: 'ping', uid: [1] },
        { type: 'ping', uid: true },
        { type: 'ping', uid: null },
        { type: 'subscribe', collection: PARCELS, uid: { s: 1 } },
        { type: { t: 1 }, uid: 'x' },
        { type: ['ping'] },
        { type: 1 },
      ]) {
        socket.send(JSON.stringify(message));
        const error = await f.next(socket, (m) => m.type === 'error');
        assert.equal(error, {
          type: 'error',
          status: 'error',
          error: { code: 'INVALID_PAYLOAD', message: (error.error as { message: string }).message },
        });
      }
      socket.send(JSON.stringify({ type: 'ping', uid: 'last' }));
      await f.next(socket, (m) => m.uid === 'last');
      assert.not.ok(
        texts.some((text) => text.includes('[object')),
        texts.join('\n'),
      );
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws('the server pings; a client that answers stays, one that never does is terminated', async () => {
  const f = await websocketFixture({ heartbeatMs: 100 });
  try {
    const answering = await f.connect('?access_token=ada-token');
    answering.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'ping') answering.send(JSON.stringify({ type: 'pong' }));
    });
    const silent = await f.connect('?access_token=ada-token');
    assert.equal(await f.next(silent, (m) => m.type === 'ping'), { type: 'ping' });
    // No close frame for a peer that does not answer: its socket is dropped (1006 on this side).
    const [code] = (await once(silent, 'close')) as [number];
    assert.is(code, 1006);
    for (let pings = 0; pings < 3; pings++) await f.next(answering, (m) => m.type === 'ping');
    assert.is(answering.readyState, answering.OPEN);
    answering.close();
  } finally {
    await f.close();
  }
});

ws('heartbeat 0: no ping, and a silent client stays connected', async () => {
  const f = await websocketFixture({ heartbeatMs: 0 });
  try {
    const socket = await f.connect('?access_token=ada-token');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.send(JSON.stringify({ type: 'ping', uid: 'still-there' }));
    assert.equal(await f.next(socket, (m) => m.type === 'pong'), { type: 'pong', uid: 'still-there' });
    assert.not.ok(
      f.received(socket).some((m) => m.type === 'ping'),
      'the server sent a ping with the heartbeat off',
    );
    socket.close();
  } finally {
    await f.close();
  }
});

ws(
  'a user past its connections is closed with 4029 at once, also when an auth message took it there',
  async () => {
    const f = await websocketFixture({ connectionsPerUser: 2 });
    try {
      const held = [await f.connect('?access_token=ada-token'), await f.connect('?access_token=ada-token')];
      for (const socket of held) {
        socket.send(JSON.stringify({ type: 'ping', uid: 'in' }));
        await f.next(socket, (m) => m.uid === 'in');
      }
      const byUrl = await f.connect('?access_token=ada-token');
      assert.is(((await once(byUrl, 'close')) as [number])[0], CLOSE.tooMany);
      // Closed while its message was being handled: the close handshake must not wait on a paused socket
      // (ws gives a peer 30 s to answer a close before it drops it).
      const byMessage = await f.connect();
      const started = Date.now();
      byMessage.send(JSON.stringify({ type: 'auth', access_token: 'ada-token' }));
      assert.is(((await once(byMessage, 'close')) as [number])[0], CLOSE.tooMany);
      assert.ok(Date.now() - started < 2000, `closed after ${Date.now() - started} ms`);
      held[0]!.close();
      await once(held[0]!, 'close');
      const freed = await f.connect();
      freed.send(JSON.stringify({ type: 'auth', access_token: 'ada-token' }));
      assert.equal(await f.next(freed, (m) => m.type === 'auth'), { type: 'auth', status: 'ok' });
      freed.close();
      held[1]!.close();
    } finally {
      await f.close();
    }
  },
);

ws(
  'a client that reads is sent a burst of changes larger than the send buffer, and a message larger than it',
  async () => {
    const f = await websocketFixture({ sendBufferMaxBytes: 16 * 1024 });
    try {
      const socket = await f.connect('?access_token=ada-token');
      socket.send(
        JSON.stringify({
          type: 'subscribe',
          collection: PARCELS,
          uid: 'b',
          query: { fields: ['id', 'label'] },
        }),
      );
      await f.next(socket, (m) => m.event === 'init');
      const closed = once(socket, 'close').then(([code]) => {
        throw new Error(`closed with ${code}`);
      });
      closed.catch(() => undefined);
      const delivered = () => Promise.race([f.delivered(socket), closed]);
      // One round of 40 changes of 1 KiB (40 KiB, held back by the round) and one change of 64 KiB alone.
      const label = 'x'.repeat(1024);
      for (let id = 100; id < 140; id++) f.feed.emit(PARCELS, id, null, { ...row(1), id, label });
      const created = await delivered();
      assert.is(created.length, 40);
      f.feed.emit(PARCELS, 200, null, { ...row(1), id: 200, label: 'y'.repeat(64 * 1024) });
      const [large] = await delivered();
      assert.is((large!.data as Array<{ label: string }>)[0]!.label.length, 64 * 1024);
      assert.is(socket.readyState, socket.OPEN);
      socket.close();
    } finally {
      await f.close();
    }
  },
);

ws('a client that does not read is closed with 4008 rather than buffered for', async () => {
  const f = await websocketFixture({ sendBufferMaxBytes: 64 * 1024 });
  try {
    const socket = await f.connect('?access_token=ada-token');
    socket.send(
      JSON.stringify({
        type: 'subscribe',
        collection: PARCELS,
        uid: 's',
        query: { fields: ['id', 'label'] },
      }),
    );
    await f.next(socket, (m) => m.event === 'init');
    const closed = once(socket, 'close');
    socket.pause();
    // More than the socket and the send buffer hold: the kernel takes a few MiB first.
    const label = 'x'.repeat(64 * 1024);
    const sent = 400;
    for (let index = 0; index < sent; index++) {
      f.feed.emit(PARCELS, 1000 + index, null, { ...row(1), id: 1000 + index, label });
      await new Promise((resolve) => setImmediate(resolve));
    }
    socket.resume();
    const [code] = (await closed) as [number];
    assert.is(code, CLOSE.slowConsumer);
    assert.ok(f.received(socket).length < sent, 'not every change was held for it');
  } finally {
    await f.close();
  }
});

ws('a message larger than realtime.wsMessageMaxBytes closes the socket with 1009', async () => {
  const f = await websocketFixture({ messageMaxBytes: 4096 });
  try {
    const socket = await f.connect('?access_token=ada-token');
    const fits = JSON.stringify({ type: 'ping', uid: 'fits', pad: '' });
    socket.send(JSON.stringify({ type: 'ping', uid: 'fits', pad: 'x'.repeat(4096 - fits.length) }));
    assert.equal(await f.next(socket, (m) => m.type === 'pong'), { type: 'pong', uid: 'fits' });
    const closed = once(socket, 'close');
    socket.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(4096) }));
    assert.is(((await closed) as [number])[0], CLOSE.tooLarge);
  } finally {
    await f.close();
  }
});

ws('a connection that neither authenticates nor subscribes gets AUTH_TIMEOUT and 4001', async () => {
  const f = await websocketFixture({ authTimeoutMs: 100, publicCaller: CALLER.anonymous });
  try {
    const idle = await f.connect();
    const closed = once(idle, 'close');
    const error = await f.next(idle, (m) => m.type === 'auth');
    assert.is((error.error as { code: string }).code, 'AUTH_TIMEOUT');
    const [code] = (await closed) as [number];
    assert.is(code, CLOSE.authTimeout);
  } finally {
    await f.close();
  }
});

ws('the auth timeout spares a connection that authenticated, or subscribed as the public', async () => {
  const f = await websocketFixture({ authTimeoutMs: 100, publicCaller: CALLER.anonymous });
  await f.grant({ role: null });
  try {
    const authenticated = await f.connect();
    authenticated.send(JSON.stringify({ type: 'auth', access_token: 'ada-token' }));
    await f.next(authenticated, (m) => m.type === 'auth' && m.status === 'ok');
    const subscriber = await f.connect();
    subscriber.send(
      JSON.stringify({ type: 'subscribe', collection: PARCELS, uid: 'p', query: { fields: ['id'] } }),
    );
    await f.next(subscriber, (m) => m.event === 'init');
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const socket of [authenticated, subscriber]) {
      socket.send(JSON.stringify({ type: 'ping', uid: 'alive' }));
      await f.next(socket, (m) => m.type === 'pong');
      socket.close();
    }
  } finally {
    await f.close();
  }
});

ws.run();
