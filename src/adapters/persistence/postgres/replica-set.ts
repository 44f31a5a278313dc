import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { ReplicaHealth } from '../../../application/ports/database-health.ts';

/** A position in the primary's write-ahead log, as a number (`X/Y` text is `X * 2^32 + Y`). */
export type WalPosition = bigint;

export function walPosition(text: string): WalPosition {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export type ReplicaSetOptions = {
  /** A replica further behind than this gets no reads (`database.replicaMaxLagMs`). */
  maxLagMs: number;
  /** How often each replica's position is read. */
  probeIntervalMs: number;
  /** Milliseconds on any steady scale. */
  now: () => number;
};

/** What the last probe found out about one replica. */
type ReplicaState =
  | { readonly status: 'down'; readonly detail: string }
  | { readonly status: 'ok' | 'lagging'; readonly lagMs: number; readonly replayed: WalPosition };

/** Where the primary's log stood at a moment: the yardstick of the replicas' lag. */
type PrimarySample = { readonly at: number; readonly position: WalPosition };

/**
 * The read replicas' health, kept by a background probe: every `probeIntervalMs` it reads the primary's
 * log position, then each replica's replayed position, on connections of its own (a pool of one per
 * server), so a replica whose serving pool is saturated is not taken for a dead one.
 *
 * A replica's lag is how old the newest data it may be missing can be, the smaller of two upper bounds:
 * the time since the newest primary position it has replayed past was sampled (exact on an idle primary,
 * whose last commit can be long ago), and the time since the commit it replayed last (finer under load
 * than the probe interval). Caught up with the primary's current position, it is 0.
 */
export class ReplicaSet {
  private readonly states: ReplicaState[];
  private samples: PrimarySample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;
  private next = 0;

  constructor(
    private readonly primaryProbe: pg.Pool,
    private readonly replicaProbes: ReadonlyArray<pg.Pool>,
    private readonly options: ReplicaSetOptions,
  ) {
    this.states = replicaProbes.map(() => ({ status: 'down', detail: 'not checked yet' }));
  }

  /** Probes now and then every `probeIntervalMs`, without keeping the process alive. */
  start(): void {
    void this.probe();
    this.timer = setInterval(() => void this.probe(), this.options.probeIntervalMs);
    this.timer.unref();
  }

  /** One round of probes; a round still running is joined, not doubled. */
  probe(): Promise<void> {
    this.probing ??= this.probeAll().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  /**
   * A replica to read from — one in service whose last probe found it past `atLeast` when given — taken
   * in turn so reads spread over them; undefined when none qualifies (read from the primary).
   */
  pick(atLeast?: WalPosition | null): number | undefined {
    if (atLeast === null) return undefined;
    const count = this.states.length;
    for (let tried = 0; tried < count; tried++) {
      const index = (this.next + tried) % count;
      const state = this.states[index]!;
      if (state.status !== 'ok') continue;
      if (atLeast !== undefined && state.replayed < atLeast) continue;
      this.next = (index + 1) % count;
      return index;
    }
    return undefined;
  }

  /** A read found the replica unreachable: out of service until a probe finds it answering again. */
  markDown(index: number): void {
    this.states[index] = { status: 'down', detail: 'not answering' };
  }

  health(): ReplicaHealth[] {
    return this.states.map((state) =>
      state.status === 'down'
        ? { status: 'down', lagMs: null, detail: state.detail }
        : { status: state.status, lagMs: Math.round(state.lagMs) },
    );
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.probing;
    await Promise.all([this.primaryProbe, ...this.replicaProbes].map((pool) => pool.end()));
  }

  private async probeAll(): Promise<void> {
    try {
      const { rows } = await this.primaryProbe.query<{ position: string }>(
        'select pg_current_wal_lsn()::text as position',
      );
      this.sample(walPosition(rows[0]!.position));
    } catch {
      // The primary not answering says nothing about the replicas: they keep the lag last measured
      // against it, and are probed for being up.
    }
    await Promise.all(this.replicaProbes.map((pool, index) => this.probeReplica(pool, index)));
  }

  private sample(position: WalPosition): void {
    const at = this.options.now();
    const keepSince = at - this.options.maxLagMs - 2 * this.options.probeIntervalMs;
    this.samples = [...this.samples.filter((sample) => sample.at >= keepSince), { at, position }];
  }

  private async probeReplica(pool: pg.Pool, index: number): Promise<void> {
    try {
      const { rows } = await pool.query<{
        standby: boolean;
        replayed: string | null;
        since_replay_ms: number | null;
      }>(REPLICA_PROBE);
      const row = rows[0]!;
      if (!row.standby || row.replayed === null) {
        this.states[index] = { status: 'down', detail: 'not a standby' };
        return;
      }
      const replayed = walPosition(row.replayed);
      const lagMs = this.lagOf(replayed, row.since_replay_ms);
      this.states[index] = {
        status: lagMs > this.options.maxLagMs ? 'lagging' : 'ok',
        lagMs,
        replayed,
      };
    } catch {
      this.states[index] = { status: 'down', detail: 'not answering' };
    }
  }

  private lagOf(replayed: WalPosition, sinceReplayMs: number | null): number {
    const latest = this.samples.at(-1);
    if (latest === undefined || replayed >= latest.position) return 0;
    const now = this.options.now();
    const reached = this.samples.findLast((sample) => sample.position <= replayed);
    const bySamples = reached === undefined ? Number.POSITIVE_INFINITY : now - reached.at;
    const byCommit = sinceReplayMs === null ? Number.POSITIVE_INFINITY : Math.max(0, sinceReplayMs);
    const lag = Math.min(bySamples, byCommit);
    // Behind every sample kept and never replayed a commit: at least as old as the oldest sample.
    return Number.isFinite(lag) ? lag : now - this.samples[0]!.at;
  }
}

/** The standby's replayed position and how long ago the commit it replayed last was made. */
const REPLICA_PROBE = `select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replayed,
  (extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 as since_replay_ms`;

/** The primary's position once everything committed so far is in its log: what a replica must reach. */
export async function committedPosition(db: Kysely<unknown>): Promise<WalPosition> {
  const { rows } = await sql<{
    position: string;
  }>`select pg_current_wal_insert_lsn()::text as position`.execute(db);
  return walPosition(rows[0]!.position);
}
