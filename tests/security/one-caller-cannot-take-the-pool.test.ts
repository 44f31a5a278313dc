import { tmpdir } from 'node:os';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/adapters/config/load-config.ts';
import { resolveSecret } from '../../src/adapters/config/resolve-secret.ts';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type {
  ItemAggregateRequest,
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
  ItemListResult,
  ItemStore,
  ItemWriter,
} from '../../src/application/ports/item-store.ts';
import { liveSnapshot } from '../../src/application/ports/item-store.ts';
import { TYPES } from '../../src/container.ts';
import { openPersistence } from '../../src/main.ts';
import { administer, postgresSkip, testDatabaseUrl } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { startTestApp, TEST_SECRET, type TestApp, type TestResponse } from '../support/test-app.ts';
import { type Arena, CARGO, expectError, prepareArena } from './attack-kit.ts';

/**
 * Issue 12, finding 1: one caller flooding slow reads filled the connection pool, everybody else got 503
 * and /server/health said 503 while the database was fine. Each caller now has a share of the requests
 * served at once, a busy pool is SERVICE_BUSY (not a lost database), health has a connection of its own,
 * and a statement of a request is cut at its kind's timeout.
 *
 * No timing is asserted: a slow request is one held on a gate (or behind a lock) until the test lets it go.
 */

/** An item store whose next `list` waits, once it has begun, until the test releases it. */
class HeldReads implements ItemStore {
  private next: { entered: () => void; released: Promise<void> } | undefined;

  constructor(private readonly inner: ItemStore) {}

  hold(): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const began = new Promise<void>((resolve) => {
      entered = resolve;
    });
    this.next = { entered, released: new Promise<void>((resolve) => (release = resolve)) };
    return { entered: began, release };
  }

  async list(request: ItemListRequest): Promise<ItemListResult> {
    const held = this.next;
    this.next = undefined;
    if (held) {
      held.entered();
      await held.released;
    }
    return this.inner.list(request);
  }

  async snapshot() {
    return liveSnapshot(this);
  }

  get(request: ItemGetRequest): Promise<string | null> {
    return this.inner.get(request);
  }

  getMany(request: ItemKeysRequest): Promise<string[]> {
    return this.inner.getMany(request);
  }

  aggregate(request: ItemAggregateRequest): Promise<string> {
    return this.inner.aggregate(request);
  }

  write<T>(work: (writer: ItemWriter) => Promise<T>): Promise<T> {
    return this.inner.write(work);
  }
}

type ShareState = { arena: Arena; reads: HeldReads };

/** A caller may have one request served and `queue` waiting; everybody else has the same. */
async function shareArena(env: Record<string, string>): Promise<ShareState> {
  const persistence = createInMemoryPersistence();
  const reads = new HeldReads(persistence.items);
  const app = await startTestApp({
    persistence,
    // No borrowing unless a suite asks for it: these suites are about the share a caller always has.
    env: { PER_CALLER_CONCURRENCY: '1', PER_CALLER_BURST: '1', ...env },
    rebind: (container) => container.rebind<ItemStore>(TYPES.ItemStore).toConstantValue(reads),
  });
  return { arena: await prepareArena(app, persistence), reads };
}

const get = (app: TestApp, path: string, token?: string, headers: Record<string, string> = {}) =>
  app.request('GET', path, { token, headers });

function expectTooMany(response: TestResponse, label: string) {
  expectError(response, 429, 'TOO_MANY_REQUESTS', label);
  assert.ok(Number(response.headers.get('retry-after')) >= 1, `${label}: Retry-After`);
}

const share = suite<ShareState>('one caller cannot take the server: each caller has a share');

share.before(async (context) => {
  Object.assign(context, await shareArena({ PER_CALLER_QUEUE: '0', TRUST_PROXY: 'true' }));
});
share.after(({ arena }) => arena.app.close());

share('a caller over its share gets 429 with Retry-After while another caller is served', async (context) => {
  const { arena, reads } = context;
  const held = reads.hold();
  const slow = get(arena.app, '/items/cargos', arena.operator);
  await held.entered;

  expectTooMany(await get(arena.app, `/items/cargos/${CARGO.fish}`, arena.operator), 'the same caller');
  const other = await get(arena.app, `/items/cargos/${CARGO.fish}`, arena.admin);
  assert.is(other.status, 200, `another caller is served (${other.text})`);
  const health = await get(arena.app, '/server/health');
  assert.is(health.status, 200, 'health is not a caller');

  held.release();
  assert.is((await slow).status, 200, 'the held request ends normally');
  const after = await get(arena.app, `/items/cargos/${CARGO.fish}`, arena.operator);
  assert.is(after.status, 200, 'its share is back once it ended');
});

share(
  "one user is one caller whatever token it presents (a static token shares its access token's limit)",
  async ({ arena, reads }) => {
    const staticToken = 'static-token-of-the-operator-0123456789';
    const set = await arena.app.request('PATCH', `/users/${arena.operatorId}`, {
      token: arena.admin,
      body: { token: staticToken },
    });
    assert.is(set.status, 200, set.text);

    const held = reads.hold();
    const slow = get(arena.app, '/items/cargos', arena.operator);
    await held.entered;
    expectTooMany(await get(arena.app, `/items/cargos/${CARGO.fish}`, staticToken), 'the static token');
    held.release();
    assert.is((await slow).status, 200);
    assert.is((await get(arena.app, `/items/cargos/${CARGO.fish}`, staticToken)).status, 200);
  },
);

share('anonymous callers are counted by client address', async ({ arena, reads }) => {
  const permission = await arena.app.request('POST', '/permissions', {
    token: arena.admin,
    body: { role: null, collection: 'cargos', action: 'read', permissions: {}, fields: ['id'] },
  });
  assert.is(permission.status, 200, permission.text);
  const from = (address: string) => ({ 'X-Forwarded-For': address });

  const held = reads.hold();
  const slow = get(arena.app, '/items/cargos', undefined, from('203.0.113.7'));
  await held.entered;
  expectTooMany(
    await get(arena.app, `/items/cargos/${CARGO.fish}`, undefined, from('203.0.113.7')),
    'the same address',
  );
  const elsewhere = await get(arena.app, `/items/cargos/${CARGO.fish}`, undefined, from('198.51.100.9'));
  assert.is(elsewhere.status, 200, `another address is served (${elsewhere.text})`);
  held.release();
  assert.is((await slow).status, 200);
});

share.run();

const queue = suite<ShareState>('a caller over its share waits its turn, boundedly');

queue.before(async (context) => {
  // A wait that ends only when a turn frees up: the test decides when.
  Object.assign(context, await shareArena({ PER_CALLER_QUEUE: '1', PER_CALLER_QUEUE_TIMEOUT: '60s' }));
});
queue.after(({ arena }) => arena.app.close());

queue(
  'a waiting request takes the turn its predecessor frees; one more than the queue holds gets 429',
  async ({ arena, reads }) => {
    const held = reads.hold();
    const slow = get(arena.app, '/items/cargos', arena.operator);
    await held.entered;
    // Two more: whichever arrives first takes the queue's one place, the other is refused at once.
    const second = get(arena.app, `/items/cargos/${CARGO.fish}`, arena.operator);
    const third = get(arena.app, `/items/cargos/${CARGO.bananas}`, arena.operator);
    expectTooMany(await Promise.race([second, third]), 'over the queue');

    held.release();
    assert.is((await slow).status, 200);
    const statuses = [(await second).status, (await third).status].sort();
    assert.equal(statuses, [200, 429], 'the waiting request is served once its turn comes');
  },
);

queue.run();

const borrow = suite<ShareState>('a caller alone on the instance borrows turns while its requests are quick');

borrow.before(async (context) => {
  // Every request counts as quick, so no timing decides the outcome (the rule's clock is tested on its own).
  Object.assign(
    context,
    await shareArena({ PER_CALLER_QUEUE: '0', PER_CALLER_BURST: '3', PER_CALLER_QUICK: '1h' }),
  );
});
borrow.after(({ arena }) => arena.app.close());

borrow(
  'past its own share, a quick caller is served from the room the instance has',
  async ({ arena, reads }) => {
    assert.is((await get(arena.app, `/items/cargos/${CARGO.fish}`, arena.operator)).status, 200);
    const held = reads.hold();
    const slow = get(arena.app, '/items/cargos', arena.operator);
    await held.entered;
    const borrowed = await get(arena.app, `/items/cargos/${CARGO.fish}`, arena.operator);
    assert.is(borrowed.status, 200, `a borrowed turn, not a 429 (${borrowed.text})`);
    held.release();
    assert.is((await slow).status, 200);
  },
);

borrow.run();

/** The server's own connection settings, read from the environment as `datagate serve` reads them. */
function serverConfig(url: string) {
  const env = {
    NODE_ENV: 'test',
    SECRET: TEST_SECRET,
    DATABASE_URL: url,
    DATA_DIR: tmpdir(),
    // One connection serves requests; a request waits for it at most this long.
    DB_POOL_SIZE: '1',
    DB_CONNECT_TIMEOUT: '3s',
    DB_STATEMENT_TIMEOUT_READ: '300ms',
    DB_STATEMENT_TIMEOUT_ADMIN: '400ms',
  };
  return resolveSecret(loadConfig({ env }), env);
}

type PoolState = { arena: Arena; persistence: MikroOrmPersistence; database: string };

const pool = skippableSuite<PoolState>(
  'a busy pool is not a lost database (PostgreSQL, a pool of one)',
  postgresSkip,
);

pool.before(async (context) => {
  context.database = `datagate_pool_${process.pid}_${Date.now().toString(36)}`;
  await administer(`create database "${context.database}"`);
  context.persistence = await openPersistence(serverConfig(testDatabaseUrl(context.database)));
  await context.persistence.migrate();
  const app = await startTestApp({ persistence: context.persistence });
  context.arena = await prepareArena(app, context.persistence);
});
pool.after(async ({ arena, database }) => {
  try {
    await arena?.app.close();
  } finally {
    await administer(`drop database if exists "${database}" with (force)`);
  }
});

/** Takes the pool's one connection until `release` is called. */
async function takeTheConnection(persistence: MikroOrmPersistence) {
  let taken!: () => void;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holding = persistence.orm.em
    .fork()
    .getKysely()
    .connection()
    .execute(async () => {
      taken();
      await released;
    });
  await new Promise<void>((resolve) => (taken = resolve));
  return async () => {
    release();
    await holding;
  };
}

type Health = { status: string; checks: { database: { status: string; detail?: string } } };

pool(
  'with every connection busy, health answers 200 "busy" and a request waiting too long gets SERVICE_BUSY',
  async ({ arena, persistence }) => {
    const release = await takeTheConnection(persistence);
    try {
      const idle = await get(arena.app, '/server/health');
      assert.is(idle.status, 200, `health has its own connection (${idle.text})`);

      // Health is asked while that request waits for the connection (at most DB_CONNECT_TIMEOUT).
      let waited = false;
      const waiting = get(arena.app, `/items/cargos/${CARGO.fish}`, arena.operator).finally(() => {
        waited = true;
      });
      let health: TestResponse;
      do {
        health = await get(arena.app, '/server/health');
        assert.is(health.status, 200, `a saturated pool is not an unhealthy server (${health.text})`);
      } while ((health.body as Health).checks.database.status !== 'busy' && !waited);
      assert.is((health.body as Health).checks.database.status, 'busy', health.text);
      assert.is((health.body as Health).status, 'warn');
      assert.match((health.body as Health).checks.database.detail ?? '', /requests waiting/);

      const busy = await waiting;
      expectError(busy, 503, 'SERVICE_BUSY', 'a request that found no free connection');
      assert.ok(Number(busy.headers.get('retry-after')) >= 1, 'Retry-After');
    } finally {
      await release();
    }
    const served = await get(arena.app, `/items/cargos/${CARGO.fish}`, arena.operator);
    assert.is(served.status, 200, served.text);
    assert.is(((await get(arena.app, '/server/health')).body as Health).status, 'ok');
  },
);

pool(
  'a read whose statement runs past the read timeout is cut: 422 QUERY_TOO_EXPENSIVE, connection freed',
  async ({ arena, database }) => {
    // A lock held elsewhere makes the read wait as long as the lock is held: a statement that cannot finish.
    // Each way a read reaches PostgreSQL: a list, a prepared get, an aggregate (unprepared), and a list of a
    // system table (in a transaction bounded by SET LOCAL).
    const reads = [
      ['cargos', '/items/cargos?search=fish'],
      ['cargos', `/items/cargos/${CARGO.fish}`],
      ['cargos', '/items/cargos?aggregate[count]=*'],
      ['datagate_activity', '/activity?limit=5'],
    ] as const;
    for (const [table, path] of reads) {
      const locker = new pg.Client({ connectionString: testDatabaseUrl(database) });
      await locker.connect();
      try {
        await locker.query('begin');
        await locker.query(`lock table ${table} in access exclusive mode`);
        const cut = await get(arena.app, path, arena.operator);
        expectError(cut, 422, 'QUERY_TOO_EXPENSIVE', `${path}: a read past database.statementTimeout.read`);
        await locker.query('rollback');
      } finally {
        await locker.end();
      }
      const served = await get(arena.app, path, arena.operator);
      assert.is(served.status, 200, `${path}: the pool's one connection is free again (${served.text})`);
    }
  },
);

pool(
  "a write past its kind's timeout is cut: 422 QUERY_TOO_EXPENSIVE, nothing written (an admin's: .admin)",
  async ({ arena, database }) => {
    const locker = new pg.Client({ connectionString: testDatabaseUrl(database) });
    await locker.connect();
    const path = `/items/cargos/${CARGO.fish}`;
    try {
      await locker.query('begin');
      await locker.query('lock table cargos in access exclusive mode');
      const cut = await arena.app.request('PATCH', path, {
        token: arena.admin,
        body: { description: 'Thawed' },
      });
      expectError(cut, 422, 'QUERY_TOO_EXPENSIVE', 'a write past database.statementTimeout.admin');
      await locker.query('rollback');
    } finally {
      await locker.end();
    }
    const read = await get(arena.app, path, arena.admin);
    assert.is((read.body as { description: string }).description, 'Frozen fish', read.text);
  },
);

pool.run();
