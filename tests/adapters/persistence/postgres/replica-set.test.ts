import type pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ReplicaSet, walPosition } from '../../../../src/adapters/persistence/postgres/replica-set.ts';

/** What a fake server answers the probe: a row, or a failure. */
type Answer = Record<string, unknown> | Error;

/** A pg.Pool stand-in answering each query with what the test last set. */
function fakeServer(answer: Answer): { pool: pg.Pool; answer: Answer } {
  const server = {
    answer,
    pool: {
      query: async () => {
        if (server.answer instanceof Error) throw server.answer;
        return { rows: [server.answer] };
      },
      end: async () => {},
    } as unknown as pg.Pool,
  };
  return server;
}

const standby = (replayed: string, sinceReplayMs: number | null = null) => ({
  standby: true,
  replayed,
  since_replay_ms: sinceReplayMs,
});

function setUp(replicaAnswers: Answer[]) {
  let now = 0;
  const primary = fakeServer({ position: '0/100' });
  const replicas = replicaAnswers.map(fakeServer);
  const set = new ReplicaSet(
    primary.pool,
    replicas.map((replica) => replica.pool),
    { maxLagMs: 1000, probeIntervalMs: 100, now: () => now },
  );
  return {
    set,
    primary,
    replicas,
    at: (ms: number) => {
      now = ms;
    },
  };
}

const replicaSet = suite('ReplicaSet: lag and choice of a replica');

replicaSet('walPosition reads PostgreSQL LSN text as one number', () => {
  assert.is(walPosition('0/3016038'), 0x3016038n);
  assert.is(walPosition('1/0'), 1n << 32n);
  assert.ok(walPosition('1/0') > walPosition('0/FFFFFFFF'));
});

replicaSet('a replica is out of service until probed', () => {
  const { set } = setUp([standby('0/100')]);
  assert.is(set.pick(), undefined);
  assert.equal(set.health(), [{ status: 'down', lagMs: null, detail: 'not checked yet' }]);
});

replicaSet('a replica that replayed the primary position has no lag', async () => {
  const { set } = setUp([standby('0/100')]);
  await set.probe();
  assert.equal(set.health(), [{ status: 'ok', lagMs: 0 }]);
  assert.is(set.pick(), 0);
});

replicaSet('behind an idle primary, lag is the age of the newest primary position it reached', async () => {
  const { set, primary, replicas, at } = setUp([standby('0/100')]);
  await set.probe();
  primary.answer = { position: '0/200' };
  replicas[0]!.answer = standby('0/100');
  at(300);
  await set.probe();
  assert.equal(set.health(), [{ status: 'ok', lagMs: 300 }]);
  at(1200);
  await set.probe();
  assert.equal(set.health(), [{ status: 'lagging', lagMs: 1200 }]);
  assert.is(set.pick(), undefined, 'a lagging replica serves no reads');
});

replicaSet('under load, a recent replayed commit bounds the lag more finely', async () => {
  const { set, primary, replicas, at } = setUp([standby('0/100')]);
  await set.probe();
  primary.answer = { position: '0/300' };
  replicas[0]!.answer = standby('0/2F0', 40);
  at(900);
  await set.probe();
  assert.equal(set.health(), [{ status: 'ok', lagMs: 40 }]);
});

replicaSet('a replica not answering, or not a standby, is down', async () => {
  const { set } = setUp([
    new Error('connect ECONNREFUSED'),
    { standby: false, replayed: null, since_replay_ms: null },
  ]);
  await set.probe();
  assert.equal(set.health(), [
    { status: 'down', lagMs: null, detail: 'not answering' },
    { status: 'down', lagMs: null, detail: 'not a standby' },
  ]);
  assert.is(set.pick(), undefined);
});

replicaSet('reads spread over the replicas in service; a position asked for narrows the choice', async () => {
  const { set } = setUp([standby('0/100'), standby('0/80', 10)]);
  await set.probe();
  assert.equal([set.pick(), set.pick(), set.pick()], [0, 1, 0]);
  assert.is(set.pick(0x90n), 0, 'only the first replayed past 0/90');
  assert.is(set.pick(0x101n), undefined, 'none replayed past 0/101');
  assert.is(set.pick(null), undefined, 'a position not known: the primary');
});

replicaSet('a replica marked down by a failed read rejoins at the next probe that finds it', async () => {
  const { set } = setUp([standby('0/100')]);
  await set.probe();
  set.markDown(0);
  assert.is(set.pick(), undefined);
  await set.probe();
  assert.is(set.pick(), 0);
});

replicaSet.run();
