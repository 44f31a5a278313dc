// The figures of docs/scale-out.md: what the cross-instance channel (LISTEN/NOTIFY, decision 0015) costs.
//
//   node --import tsx bench/notify-fanout.ts
//
// 1. latency: commit of a transaction that notifies, on one connection → notification received on another.
// 2. fan-out: 100 connections LISTENing (100 simulated instances); from one commit to the last receiver.
// 3. write cost: single-row updates of datagate_users with and without migration 0004's trigger.
//
// 1 and 3 run in a throwaway database on the server of DATABASE_URL (default: the local one), dropped at the
// end. 2 needs more connections than a shared server may spare (the local one allows 100 in all), so it
// runs on a throwaway PostgreSQL of its own (initdb in a temporary directory, a free port, removed at the
// end) when PostgreSQL's tools are installed, and is skipped otherwise. The whole run is bounded.

import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { databaseUrl, freePort } from '../scripts/local-harness.ts';
import { openMikroOrmPersistence } from '../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';

const run = promisify(execFile);
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const notifications = Number(process.env.BENCH_NOTIFICATIONS ?? 1000);
const listeners = Number(process.env.BENCH_LISTENERS ?? 100);
const fanoutRounds = Number(process.env.BENCH_FANOUT_ROUNDS ?? 200);
const updates = Number(process.env.BENCH_UPDATES ?? 10_000);
/** The whole run is stopped (and cleaned up) past this. */
const deadlineMs = Number(process.env.BENCH_DEADLINE_MS ?? 240_000);
const CHANNEL = 'datagate_changes';

const cleanups: Array<() => Promise<unknown>> = [];
async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}
const deadline = setTimeout(() => {
  console.error(`stopped: past ${deadlineMs} ms`);
  void cleanUp().finally(() => process.exit(1));
}, deadlineMs);

async function connect(url: string, name: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: name });
  client.on('error', () => {});
  await client.connect();
  return client;
}

function percentile(sorted: ReadonlyArray<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const f = (ms: number) => `${ms.toFixed(3)} ms`;
  return `n=${sorted.length} p50 ${f(percentile(sorted, 50))}, p99 ${f(percentile(sorted, 99))}, max ${f(sorted.at(-1) ?? Number.NaN)}`;
}

/** Resolves with the receive time of the next notification whose payload is `payload`, on every client. */
function arrivals(clients: ReadonlyArray<pg.Client>, payload: string): Promise<number[]> {
  return Promise.all(
    clients.map(
      (client) =>
        new Promise<number>((resolve) => {
          const heard = (message: pg.Notification) => {
            if (message.payload !== payload) return;
            client.off('notification', heard);
            resolve(performance.now());
          };
          client.on('notification', heard);
        }),
    ),
  );
}

/** Commit → receipt, one notification at a time, `begin; pg_notify; commit` as a trigger would send it. */
async function measureLatency(url: string): Promise<string> {
  const sender = await connect(url, 'bench notify sender');
  const receiver = await connect(url, 'bench notify receiver');
  try {
    await receiver.query(`listen ${CHANNEL}`);
    const samples: number[] = [];
    for (let i = 0; i < notifications; i++) {
      const payload = JSON.stringify({ kind: 'user', id: `bench-${i}` });
      await sender.query('begin');
      await sender.query('select pg_notify($1, $2)', [CHANNEL, payload]);
      const heard = arrivals([receiver], payload);
      const start = performance.now();
      await sender.query('commit');
      const [at] = await heard;
      samples.push((at ?? Number.NaN) - start);
    }
    return summary(samples);
  } finally {
    await sender.end();
    await receiver.end();
  }
}

/** `listeners` connections LISTENing; per commit, the time to the first and to the last receiver. */
async function measureFanout(url: string): Promise<{ first: string; last: string }> {
  const sender = await connect(url, 'bench fan-out sender');
  const clients: pg.Client[] = [];
  try {
    for (let i = 0; i < listeners; i++) {
      const client = await connect(url, `bench listener ${i}`);
      clients.push(client);
      await client.query(`listen ${CHANNEL}`);
    }
    const first: number[] = [];
    const last: number[] = [];
    for (let round = 0; round < fanoutRounds; round++) {
      const payload = JSON.stringify({ kind: 'role', id: `fanout-${round}` });
      await sender.query('begin');
      await sender.query('select pg_notify($1, $2)', [CHANNEL, payload]);
      const heard = arrivals(clients, payload);
      const start = performance.now();
      await sender.query('commit');
      const times = (await heard).map((at) => at - start);
      first.push(Math.min(...times));
      last.push(Math.max(...times));
    }
    return { first: summary(first), last: summary(last) };
  } finally {
    await sender.end();
    for (const client of clients) await client.end().catch(() => {});
  }
}

type WriteCase = 'no trigger' | 'trigger, nobody listening' | 'trigger, 1 listener';

/**
 * `updates` single-row updates of one user (autocommit, as an admin's PATCH of a user commits), split in
 * 5 blocks per case run in turn so the box's drift hits every case alike.
 */
async function measureWriteCost(url: string): Promise<Record<WriteCase, string>> {
  const persistence = await openMikroOrmPersistence({ url, dataDir: 'unused' });
  try {
    await persistence.migrate();
  } finally {
    await persistence.close();
  }
  const writer = await connect(url, 'bench writer');
  const listener = await connect(url, 'bench listener');
  try {
    const {
      rows: [user],
    } = await writer.query<{ id: string }>(
      `insert into datagate_users (id, email, password_hash, created_at)
       values (gen_random_uuid(), 'bench@example.com', 'x', now()) returning id`,
    );
    const cases: WriteCase[] = ['no trigger', 'trigger, nobody listening', 'trigger, 1 listener'];
    const samples = new Map<WriteCase, number[]>(cases.map((name) => [name, []]));
    const blocks = 5;
    for (let block = 0; block < blocks; block++) {
      for (const name of cases) {
        await writer.query(
          `alter table datagate_users ${name === 'no trigger' ? 'disable' : 'enable'} trigger datagate_users_notify`,
        );
        await listener.query(name === 'trigger, 1 listener' ? `listen ${CHANNEL}` : 'unlisten *');
        const times = samples.get(name) ?? [];
        for (let i = 0; i < updates / blocks; i++) {
          const start = performance.now();
          await writer.query('update datagate_users set first_name = $1 where id = $2', [`n${i}`, user?.id]);
          times.push(performance.now() - start);
        }
      }
    }
    const report = (name: WriteCase) => {
      const times = samples.get(name) ?? [];
      const total = times.reduce((sum, t) => sum + t, 0);
      return `${summary(times)}, ${Math.round((times.length / total) * 1000)} updates/s`;
    };
    return Object.fromEntries(cases.map((name) => [name, report(name)])) as Record<WriteCase, string>;
  } finally {
    await writer.end();
    await listener.end();
  }
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
    .find((name) => ['initdb', 'pg_ctl'].every((tool) => existsSync(join(root, name, 'bin', tool))));
  return version && join(root, version, 'bin');
}

/** A PostgreSQL of its own for the fan-out: TCP on 127.0.0.1 only, room for every listener. */
async function throwawayServer(bin: string): Promise<string> {
  const asRoot = userInfo().uid === 0;
  const tool = (name: string, args: string[]) =>
    run(
      asRoot ? 'runuser' : join(bin, name),
      asRoot ? ['-u', 'postgres', '--', join(bin, name), ...args] : args,
      {
        timeout: 60_000,
      },
    );
  const root = await mkdtemp(join(tmpdir(), 'datagate-notify-bench-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    await chown(root, uid, gid);
  }
  await chmod(root, 0o700);
  const dir = join(root, 'data');
  const port = await freePort();
  await tool('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${root}`,
    '-c shared_buffers=32MB',
    `-c max_connections=${listeners + 20}`,
  ].join(' ');
  await tool('pg_ctl', ['-D', dir, '-w', '-l', `${dir}.log`, '-o', options, 'start']);
  cleanups.push(() => tool('pg_ctl', ['-D', dir, '-w', '-m', 'fast', 'stop']));
  return `postgresql://postgres@127.0.0.1:${port}/postgres`;
}

async function main(): Promise<void> {
  const admin = await connect(serverUrl, 'bench admin');
  const database = `datagate_bench_notify_${process.pid}`;
  cleanups.push(async () => {
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  });
  const {
    rows: [server],
  } = await admin.query<{ version: string; max_connections: string }>(
    `select version(), current_setting('max_connections') as max_connections`,
  );
  await admin.query(`create database ${database}`);
  const url = databaseUrl(serverUrl, database);
  console.log(`# notify-fanout, ${new Date().toISOString()}`);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ${server?.version}`);
  console.log(`\n## 1. NOTIFY latency, commit → received on another connection (${notifications} in turn)`);
  console.log(await measureLatency(url));

  console.log(`\n## 2. fan-out to ${listeners} listeners, one Node process (${fanoutRounds} notifications)`);
  const bin = postgresBin();
  if (bin) {
    const fanout = await measureFanout(await throwawayServer(bin));
    console.log(`first receiver: ${fanout.first}`);
    console.log(`last receiver:  ${fanout.last}`);
  } else {
    console.log('skipped: initdb and pg_ctl not found under /usr/lib/postgresql');
  }

  console.log(`\n## 3. write cost of the trigger: ${updates} single-row updates of datagate_users per case`);
  for (const [name, figures] of Object.entries(await measureWriteCost(url)))
    console.log(`${name}: ${figures}`);
}

try {
  await main();
} finally {
  clearTimeout(deadline);
  await cleanUp();
}
