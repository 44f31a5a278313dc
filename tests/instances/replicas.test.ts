import pg from 'pg';
import * as assert from 'uvu/assert';
import { openMikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { ReplicaRoutingItemStore } from '../../src/adapters/persistence/postgres/replica-routing-item-store.ts';
import type { HealthReport } from '../../src/application/server/check-health.ts';
import { postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import {
  type StreamingReplica,
  startStreamingReplica,
  streamingReplicaSkip,
} from '../support/streaming-replica.ts';
import { type SeededUser, startTestApp, type TestApp } from '../support/test-app.ts';

type State = {
  pair: StreamingReplica;
  app: TestApp;
  /** Access tokens of two admins: reads of one are not pinned by the other's writes. */
  writer: string;
  other: string;
};

/** Short, so a replica's change of state shows within a few hundred milliseconds. */
const PROBE_INTERVAL_MS = 100;
/** Long enough for a case to write and read while replay is paused, without the replica lagging out. */
const MAX_LAG_MS = 4000;

const replicas = skippableSuite<State>(
  'read replicas: a real streaming standby',
  postgresSkip ?? streamingReplicaSkip,
);

replicas.before(async (state) => {
  state.pair = await startStreamingReplica();
  const persistence = await openMikroOrmPersistence({
    url: state.pair.primaryUrl,
    dataDir: 'unused',
    timeouts: { connectMs: 1000, queryMs: 5000 },
    replicas: { urls: [state.pair.replicaUrl], maxLagMs: MAX_LAG_MS, probeIntervalMs: PROBE_INTERVAL_MS },
  });
  await persistence.migrate();
  await onServer(state.pair.primaryUrl, 'create table notes (id serial primary key, body text not null)');
  state.app = await startTestApp({ persistence });
  const admin = await state.app.seedAdmin();
  const second: SeededUser = await state.app.createUser({ role: admin.role });
  state.writer = (await state.app.login(admin)).access_token;
  state.other = (await state.app.login(second)).access_token;
  await until(state, (report) => report.checks.replicas?.[0]?.status === 'ok');
});

replicas.after(async (state) => {
  await state.app?.close();
  await state.pair?.stop();
});

replicas('an item list by a caller who has not written is read from the replica', async (state) => {
  const before = readsServed(state);
  const response = await state.app.request('GET', '/items/notes', { token: state.other });
  assert.is(response.status, 200);
  const after = readsServed(state);
  assert.is(after[1], before[1]! + 1, 'served by the replica');
  assert.is(after[0], before[0], 'not by the primary');
  const sessions = await onServer(
    state.pair.replicaUrl,
    "select count(*)::int as n from pg_stat_activity where application_name = 'datagate replica'",
  );
  assert.ok((sessions[0] as { n: number }).n >= 1, 'the replica holds the serving connection');
});

replicas('an aggregate is a read like a list: served by the replica', async (state) => {
  const before = readsServed(state);
  const response = await state.app.request('GET', '/items/notes?aggregate[count]=*', { token: state.other });
  assert.is(response.status, 200, response.text);
  const after = readsServed(state);
  assert.is(after[1], before[1]! + 1, 'served by the replica');
  assert.is(after[0], before[0], 'not by the primary');
});

replicas('a caller reads their own write while the replica has not replayed it', async (state) => {
  await onServer(state.pair.replicaUrl, 'select pg_wal_replay_pause()');
  try {
    const created = await state.app.request('POST', '/items/notes', {
      token: state.writer,
      body: { body: 'written just now' },
    });
    assert.is(created.status, 200, created.text);
    const id = (created.body as { id: number }).id;

    const before = readsServed(state);
    const own = await state.app.request('GET', `/items/notes/${id}`, { token: state.writer });
    assert.is(own.status, 200, 'the writer sees the write at once');
    assert.is(readsServed(state)[0], before[0]! + 1, 'from the primary');

    const others = await state.app.request('GET', `/items/notes/${id}`, { token: state.other });
    assert.is(others.status, 404, 'another caller reads the replica, which has not replayed it yet');
    assert.is(readsServed(state)[1], before[1]! + 1);
  } finally {
    await onServer(state.pair.replicaUrl, 'select pg_wal_replay_resume()');
  }
  await eventually(
    async () => {
      const before = readsServed(state);
      const list = await state.app.request('GET', '/items/notes', { token: state.writer });
      const rows = list.body as unknown[];
      return readsServed(state)[1] === before[1]! + 1 && rows.length > 0;
    },
    () => 'once the replica replayed the write, the writer reads from it again',
  );
});

replicas('a stopped replica is skipped, and rejoins once it answers again', async (state) => {
  await state.pair.stopReplica();
  try {
    const response = await state.app.request('GET', '/items/notes', { token: state.other });
    assert.is(response.status, 200, 'the primary answers instead');
    const report = await until(state, (health) => health.checks.replicas?.[0]?.status === 'down');
    assert.is(report.status, 'warn');
    assert.is(report.checks.replicas?.[0]?.lagMs, null);
    const before = readsServed(state);
    assert.is((await state.app.request('GET', '/items/notes', { token: state.other })).status, 200);
    assert.is(readsServed(state)[0], before[0]! + 1, 'a replica known to be down is not tried');
  } finally {
    await state.pair.startReplica();
  }
  await until(state, (health) => health.checks.replicas?.[0]?.status === 'ok');
  const before = readsServed(state);
  assert.is((await state.app.request('GET', '/items/notes', { token: state.other })).status, 200);
  assert.is(readsServed(state)[1], before[1]! + 1, 'the replica serves reads again');
});

replicas('health lists each replica with its lag', async (state) => {
  const response = await state.app.request('GET', '/server/health');
  assert.is(response.status, 200);
  const report = response.body as HealthReport;
  assert.is(report.status, 'ok');
  assert.is(report.checks.replicas?.length, 1);
  const [replica] = report.checks.replicas!;
  assert.is(replica!.status, 'ok');
  assert.type(replica!.lagMs, 'number');
  assert.ok(replica!.lagMs! <= MAX_LAG_MS);
});

replicas.run();

function readsServed(state: State): ReadonlyArray<number> {
  return (state.app.persistence.items as ReplicaRoutingItemStore).readsServed();
}

async function onServer(url: string, statement: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

/** The health report once `wanted` holds (polled; fails after 10 s). */
async function until(state: State, wanted: (report: HealthReport) => boolean): Promise<HealthReport> {
  let report: HealthReport | undefined;
  await eventually(
    async () => {
      report = (await state.app.request('GET', '/server/health')).body as HealthReport;
      return wanted(report);
    },
    () => `health never got there; last: ${JSON.stringify(report)}`,
  );
  return report!;
}

async function eventually(check: () => Promise<boolean>, message: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.unreachable(message());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
