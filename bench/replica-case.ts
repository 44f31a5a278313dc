// The `list_replica` case of `make bench`: item lists read through a hot standby, against the same server
// reading from its primary alone. The machine's own PostgreSQL has no standby (and its configuration is
// never touched), so this case makes its own pair with tests/support/streaming-replica.ts.

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freePort, productionServerEnv, waitFor, withClient } from '../scripts/local-harness.ts';
import { type StreamingReplica, startStreamingReplica } from '../tests/support/streaming-replica.ts';

/** What the case needs of the harness (bench/run.ts), which owns the processes and the measuring. */
export type ReplicaCaseHarness<M extends { rps: number }> = {
  rows: number;
  /** A directory for the servers' logs. */
  dir: string;
  cli: string;
  admin: { email: string; password: string };
  logLevel: string | undefined;
  /** Variables every bench server gets (token TTL, throttle off). */
  extra: NodeJS.ProcessEnv;
  start(args: string[], options: { env: NodeJS.ProcessEnv; logFile: string }): ChildProcess;
  stop(child: ChildProcess, graceMs?: number): Promise<unknown>;
  run(
    command: string,
    args: string[],
    options: { env?: NodeJS.ProcessEnv; timeoutMs?: number },
  ): Promise<string>;
  measure(base: string, load: { path: string; token: string }, pid: number | undefined): Promise<M>;
  log(message: string): void;
};

export type ReplicaCaseResult<M> = {
  /** Through the replica (`DATABASE_REPLICAS`). */
  replica: M;
  /** The same server and pair, `DATABASE_REPLICAS` unset: every read on the primary. */
  primaryOnly: M;
  /** Where the reads went, from the standby's own statistics. */
  sanity: string;
};

const LIST = '/items/cargos?limit=100';

const running = new Set<StreamingReplica>();

/** For the harness's clean-up on failure or Ctrl-C: stops and removes every pair still running. */
export async function stopReplicaPairs(): Promise<void> {
  for (const pair of running) {
    await pair.stop().catch(() => {});
    running.delete(pair);
  }
}

export async function benchReplicaReads<M extends { rps: number }>(
  harness: ReplicaCaseHarness<M>,
): Promise<ReplicaCaseResult<M>> {
  const pair = await startStreamingReplica();
  running.add(pair);
  try {
    const token = randomBytes(32).toString('hex');
    const env = (port: number, replicas?: string) =>
      productionServerEnv({
        databaseUrl: pair.primaryUrl,
        port,
        admin: harness.admin,
        logLevel: harness.logLevel,
        extra: { ...harness.extra, ...(replicas ? { DATABASE_REPLICAS: replicas } : {}) },
      });
    const cli = (...args: string[]) =>
      harness.run(process.execPath, [harness.cli, ...args], { env: env(0), timeoutMs: 900_000 });
    await cli('migrate');
    await cli('bootstrap');
    await cli('sample', 'cargos', '--rows', String(harness.rows));
    await cli('users', 'token', '--email', harness.admin.email, '--token', token);
    await withClient(pair.primaryUrl, (client) => client.query('vacuum analyze cargos'));
    await caughtUp(pair);

    const serve = async (name: string, replicas?: string) => {
      const port = await freePort();
      const server = harness.start([harness.cli, 'serve'], {
        env: env(port, replicas),
        logFile: join(harness.dir, `${name}.log`),
      });
      const base = `http://127.0.0.1:${port}`;
      await waitFor(`${base}/server/health`, server);
      return { server, base };
    };

    harness.log(`${harness.rows}: list_replica — primary only`);
    const alone = await serve('datagate-primary-only');
    const primaryOnly = await harness.measure(alone.base, { path: LIST, token }, alone.server.pid);
    await harness.stop(alone.server);

    harness.log(`${harness.rows}: list_replica — through the replica`);
    const before = await replicaTransactions(pair);
    const routed = await serve('datagate-replica', pair.replicaUrl);
    await replicaInService(routed.base);
    const replica = await harness.measure(routed.base, { path: LIST, token }, routed.server.pid);
    await harness.stop(routed.server);
    const served = (await replicaTransactions(pair)) - before;
    return {
      replica,
      primaryOnly,
      sanity: `list_replica: the standby ran ${served.toLocaleString('en')} transactions during the replica run (warm-up included; each read is one)`,
    };
  } finally {
    running.delete(pair);
    await pair.stop();
  }
}

/** Until the standby has replayed everything the set-up wrote. */
async function caughtUp(pair: StreamingReplica): Promise<void> {
  const target = await withClient(pair.primaryUrl, async (client) => {
    const { rows } = await client.query('select pg_current_wal_lsn()::text as lsn');
    return rows[0].lsn as string;
  });
  for (let tries = 0; tries < 600; tries++) {
    const done = await withClient(pair.replicaUrl, async (client) => {
      const { rows } = await client.query('select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [target]);
      return rows[0].done as boolean;
    });
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the standby did not catch up with the set-up within a minute');
}

/** Until the server's first probe has put the replica in service (its health lists it `ok`). */
async function replicaInService(base: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const report = (await (await fetch(`${base}/server/health`)).json()) as {
      checks: { replicas?: Array<{ status: string }> };
    };
    if (report.checks.replicas?.[0]?.status === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the replica never came into service');
}

/** Transactions the standby has run so far (its own statistics: a standby counts the reads it serves). */
async function replicaTransactions(pair: StreamingReplica): Promise<number> {
  return withClient(pair.replicaUrl, async (client) => {
    const { rows } = await client.query(
      "select xact_commit + xact_rollback as n from pg_stat_database where datname = 'postgres'",
    );
    return Number(rows[0].n);
  });
}
