import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as assert from 'uvu/assert';
import { postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { call, eventually } from './http.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from './throwaway-database.ts';

const BIN = new URL('../../bin/datagate.mjs', import.meta.url).pathname;
const ADMIN = { email: 'root@example.com', password: 'root-password-123' };
const BATCH = 1000;
const WRITERS = 3;
const ROUNDS = 3;
/**
 * Enough columns that one batch takes two INSERT statements (65,535 bind parameters per statement:
 * 949 rows of 69 values), so a kill between them is possible and only the transaction keeps the batch
 * whole. Checked: with the transaction taken out of PostgresItemStore.write this test fails.
 */
const FILLERS = Array.from({ length: 67 }, (_, index) => `c${index + 1}`);

type Served = { child: ChildProcess; url: string; exited: Promise<number | null> };

function serve(env: Record<string, string>): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env },
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\S+)/.exec(stdout);
      if (match) resolve({ child, url: match[1]!, exited });
    });
    void exited.then((code) => reject(new Error(`serve exited early with ${code}`)));
  });
}

function batchOf(marker: string) {
  return Array.from({ length: BATCH }, (_, n) => ({
    marker,
    n,
    ...Object.fromEntries(FILLERS.map((name) => [name, n])),
  }));
}

type Round = { sent: string[]; acknowledged: string[]; inFlightAtKill: number };

/** Writers post batch after batch until the server dies under them; kill -9 lands at a random moment. */
async function crashRound(server: Served, token: string, round: number): Promise<Round> {
  const result: Round = { sent: [], acknowledged: [], inFlightAtKill: 0 };
  let inFlight = 0;
  let dead = false;
  let firstAcknowledged!: () => void;
  const someAcknowledged = new Promise<void>((resolve) => {
    firstAcknowledged = resolve;
  });
  const writer = async (id: number) => {
    for (let k = 0; !dead; k++) {
      const marker = `r${round}-w${id}-b${k}`;
      result.sent.push(marker);
      inFlight++;
      try {
        const answer = await call(server.url, 'POST', '/items/batches?fields=id', {
          token,
          body: batchOf(marker),
        });
        assert.is(answer.status, 200, answer.text);
        result.acknowledged.push(marker);
        firstAcknowledged();
      } catch (error) {
        if (!dead) throw error;
      } finally {
        inFlight--;
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, id) => writer(id));
  await someAcknowledged;
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 600));
  result.inFlightAtKill = inFlight;
  dead = true;
  server.child.kill('SIGKILL');
  await Promise.all(writers);
  return result;
}

const crash = skippableSuite<{ database: ThrowawayDatabase }>(
  'kill -9 during batch writes on PostgreSQL',
  postgresSkip,
);

crash.before(async (context) => {
  context.database = await createThrowawayDatabase('crash');
});
crash.after(async ({ database }) => {
  await database?.drop();
});

crash('every batch is in the table whole or not at all', async ({ database }) => {
  const env = {
    DATABASE_URL: database.url(),
    DATA_DIR: tmpdir(),
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    // The writers are one caller; on a loaded machine a batch can outlast the default 2 s wait for a turn,
    // and a 429 is not what this test is about.
    PER_CALLER_QUEUE_TIMEOUT: '60s',
  };
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const server = await serve(env);
    try {
      const login = await call(server.url, 'POST', '/auth/login', { body: ADMIN });
      const token = (login.body as { access_token: string }).access_token;
      if (round === 0) {
        const created = await call(server.url, 'POST', '/collections', {
          token,
          body: {
            collection: 'batches',
            fields: [
              { field: 'id', type: 'integer', schema: { is_primary_key: true } },
              { field: 'marker', type: 'string' },
              { field: 'n', type: 'integer' },
              ...FILLERS.map((field) => ({ field, type: 'integer' })),
            ],
          },
        });
        assert.is(created.status, 200, created.text);
      }
      rounds.push(await crashRound(server, token, round));
      assert.is(await server.exited, null, 'killed by a signal');
    } finally {
      server.child.kill('SIGKILL');
    }
    // A transaction whose client died ends when its backend notices; count only after that.
    await eventually(async () => {
      const [row] = await database.query<{ open: string }>(
        "select count(*) as open from pg_stat_activity where datname = $1 and application_name = 'datagate'",
        [database.name],
      );
      return row!.open === '0';
    }, 10_000);
  }

  const counts = new Map(
    (
      await database.query<{ marker: string; rows: string }>(
        'select marker, count(*) as rows from batches group by marker',
      )
    ).map((row) => [row.marker, Number(row.rows)]),
  );
  for (const [marker, rows] of counts) assert.is(rows, BATCH, `batch ${marker} has ${rows} rows`);
  for (const round of rounds) {
    assert.ok(round.inFlightAtKill > 0, 'the kill landed while batches were being written');
    for (const marker of round.acknowledged) assert.is(counts.get(marker), BATCH, `acknowledged ${marker}`);
    for (const marker of round.sent) assert.ok([undefined, BATCH].includes(counts.get(marker)), marker);
  }
  const unacknowledged = rounds.flatMap((round) =>
    round.sent.filter((marker) => !round.acknowledged.includes(marker)),
  );
  console.log(
    `  crash: ${rounds.length} kills, ${counts.size} whole batches, ` +
      `${unacknowledged.length} batches in flight at a kill (${unacknowledged.filter((m) => counts.has(m)).length} committed before dying)`,
  );
});

crash('every role in the table has its activity entry, and every entry its role', async ({ database }) => {
  const env = {
    DATABASE_URL: database.url(),
    DATA_DIR: tmpdir(),
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    PER_CALLER_QUEUE_TIMEOUT: '60s',
  };
  let inFlightAtKill = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const server = await serve(env);
    try {
      const login = await call(server.url, 'POST', '/auth/login', { body: ADMIN });
      const token = (login.body as { access_token: string }).access_token;
      let inFlight = 0;
      let dead = false;
      let created = 0;
      const writer = async (id: number) => {
        for (let k = 0; !dead; k++) {
          inFlight++;
          try {
            const answer = await call(server.url, 'POST', '/roles', {
              token,
              body: { name: `crash-r${round}-w${id}-${k}` },
            });
            assert.is(answer.status, 200, answer.text);
            created++;
          } catch (error) {
            if (!dead) throw error;
          } finally {
            inFlight--;
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, id) => writer(id));
      while (created < 20) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
      inFlightAtKill += inFlight;
      dead = true;
      server.child.kill('SIGKILL');
      await Promise.all(writers);
      assert.is(await server.exited, null, 'killed by a signal');
    } finally {
      server.child.kill('SIGKILL');
    }
  }
  assert.ok(inFlightAtKill > 0, 'the kills landed while roles were being created');
  const [unrecorded] = await database.query<{ count: string }>(
    `select count(*) from datagate_roles r where r.name like 'crash-%' and not exists (
      select 1 from datagate_activity a where a.collection = 'datagate_roles' and a.item = r.id::text)`,
  );
  const [orphaned] = await database.query<{ count: string }>(
    `select count(*) from datagate_activity a where a.collection = 'datagate_roles' and not exists (
      select 1 from datagate_roles r where r.id::text = a.item)`,
  );
  assert.is(unrecorded!.count, '0', 'roles without their entry');
  assert.is(orphaned!.count, '0', 'entries without their role');
});

crash.run();
