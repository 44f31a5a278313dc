import { performance } from 'node:perf_hooks';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import {
  type ItemEvent,
  type ItemEventFeed,
  type ItemEventListener,
  isLogPosition,
} from '../../../application/ports/item-events.ts';
import type { StoredItem } from '../../../application/ports/item-store.ts';
import type { SchemaCatalog } from '../../../application/ports/schema-catalog.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import { traceEventsRead } from '../../realtime-delivery-trace.ts';
import { canonicalValueOf } from './canonical-value-sql.ts';
import { itemEventsTable } from './item-events-table.ts';
import type { ItemEventWakeUps } from './item-events-wake-ups.ts';

export type PostgresItemEventFeedOptions = {
  /** How long an event is kept (`realtime.replayWindow`), in milliseconds. */
  readonly replayWindowMs: number;
  /**
   * What tells this instance that events have committed, on any instance (a NOTIFY channel); without it
   * the log is read every `unwokenPollMs`.
   */
  readonly wakeUps?: ItemEventWakeUps;
  /** How often the log is read anyway while the wake-ups listen (`realtime.pollInterval`): a safety net. */
  readonly pollMs?: number;
  /** How often it is read while there are no wake-ups, or their channel is lost. */
  readonly unwokenPollMs?: number;
  /** How often old events are pruned, and how many at most per statement. */
  readonly pruneEveryMs?: number;
  readonly pruneBatch?: number;
  /** The schema of the system tables, the log's among them; unset, the search path finds it. */
  readonly systemSchema?: string;
  /**
   * Where the log is read (itemEventReaderDatabase: a server's connections of their own, docs/decisions/0047);
   * unset, on the database the feed prunes through.
   */
  readonly reader?: Kysely<unknown>;
};

type EventRow = {
  id: string;
  collection: string;
  action: ItemEvent['action'];
  key: unknown;
  before: string | null;
  after: string | null;
};

const DEFAULT_POLL_MS = 1000;
const DEFAULT_UNWOKEN_POLL_MS = 100;
const DEFAULT_PRUNE_EVERY_MS = 10_000;
const DEFAULT_PRUNE_BATCH = 1000;
const POLL_BATCH = 1000;

/**
 * The items' change log on PostgreSQL (server or PGlite): the table the item writers fill in their
 * transactions (docs/decisions/0030-item-change-log.md). Ids are handed out in commit order (the writers'
 * advisory lock), so "after id N" never skips an event that commits later. While anyone listens, the log
 * is read as soon as a wake-up says events have committed (on any instance of the database), and every
 * `pollMs` in case one was missed; while the wake-up channel is lost, every `unwokenPollMs`, so a lost
 * channel makes delivery slower, never stale. Old events are pruned in small batches by a timer, apart from
 * any write.
 */
export class PostgresItemEventFeed implements ItemEventFeed {
  private readonly listeners = new Set<ItemEventListener>();
  private poller: NodeJS.Timeout | undefined;
  private readonly pruner: NodeJS.Timeout;
  /** The last position delivered to the listeners; undefined until the first poll has found the latest. */
  private delivered: string | undefined;
  private polling = false;
  /** A wake-up came while a poll was under way, after its read perhaps: read once more when it ends. */
  private pollAgain = false;
  /** The wake-up channel listens, so the timer is only a safety net. */
  private awake = false;
  private wakeUpsStarted = false;
  /** When the first wake-up not yet answered by a read was heard (`performance.now()`), for the delivery trace. */
  private wokenAt: number | null = null;

  private readonly table: RawBuilder<unknown>;
  private readonly reader: Kysely<unknown>;

  constructor(
    private readonly db: Kysely<unknown>,
    private readonly catalog: SchemaCatalog,
    private readonly options: PostgresItemEventFeedOptions,
  ) {
    this.table = itemEventsTable(options.systemSchema);
    this.reader = options.reader ?? db;
    this.pruner = setInterval(() => {
      this.prune().catch(() => {});
    }, options.pruneEveryMs ?? DEFAULT_PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  subscribe(listener: ItemEventListener): () => void {
    const own: ItemEventListener = { events: (batch) => listener.events(batch), lost: () => listener.lost() };
    this.listeners.add(own);
    if (!this.poller) {
      this.schedule();
      this.poll();
    }
    this.startWakeUps();
    return () => {
      this.listeners.delete(own);
      if (this.listeners.size === 0 && this.poller) {
        clearInterval(this.poller);
        this.poller = undefined;
        this.delivered = undefined;
      }
    };
  }

  /**
   * Connects the wake-ups on the first subscription and keeps them until `close`: an instance that served
   * subscribers once is likely to again. A wake-up while nobody listens reads nothing.
   */
  private startWakeUps(): void {
    if (this.wakeUpsStarted || !this.options.wakeUps) return;
    this.wakeUpsStarted = true;
    this.options.wakeUps.start({
      woken: () => {
        this.wokenAt ??= performance.now();
        this.poll();
      },
      lost: () => this.setAwake(false),
      listening: () => this.setAwake(true),
    });
  }

  /** Either way the log is read at once: whatever committed while the channel was lost is read now. */
  private setAwake(awake: boolean): void {
    this.awake = awake;
    if (this.poller) this.schedule();
    this.poll();
  }

  private schedule(): void {
    clearInterval(this.poller);
    const every = this.awake
      ? (this.options.pollMs ?? DEFAULT_POLL_MS)
      : (this.options.unwokenPollMs ?? DEFAULT_UNWOKEN_POLL_MS);
    this.poller = setInterval(() => this.poll(), every);
    this.poller.unref();
  }

  async since(after: string, limit: number): Promise<ItemEvent[] | null> {
    if (!isLogPosition(after) || !(await this.covers(after))) return null;
    const { rows } = await sql<EventRow>`
      select e.id::text as id, e.collection, e.action, e.key, e.before::text as before, e.after::text as after
      from ${this.table} as e where e.id > ${after}::int8
      order by e.id limit ${Math.max(0, limit)}`.execute(this.reader);
    return rows.map((row) => this.eventOf(row));
  }

  async latest(): Promise<string> {
    return this.latestOn(this.reader);
  }

  private async latestOn(db: Kysely<unknown>): Promise<string> {
    const { rows } = await sql<{ last: string }>`
      select coalesce(max(id), 0)::text as last from ${this.table}`.execute(db);
    return rows[0]!.last;
  }

  /** Stops the timers and the wake-ups; the listeners hear nothing more. */
  async close(): Promise<void> {
    clearInterval(this.pruner);
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    this.listeners.clear();
    await this.options.wakeUps?.close();
  }

  /**
   * Deletes events older than the replay window, a batch at a time, so no write waits on it long. The
   * newest event is kept whatever its age: it is the position `latest()` hands out, which must stay covered.
   */
  async prune(): Promise<void> {
    const batch = this.options.pruneBatch ?? DEFAULT_PRUNE_BATCH;
    for (;;) {
      const { numAffectedRows } = await sql`
        delete from ${this.table} where id in (select id from ${this.table}
          where at < now() - make_interval(secs => ${this.options.replayWindowMs / 1000}::float8)
            and id < (select max(id) from ${this.table})
          order by id limit ${batch})`.execute(this.db);
      if (Number(numAffectedRows ?? 0) < batch) return;
    }
  }

  /** '0' is covered while nothing has been pruned yet; any other position while its event is kept. */
  private async covers(after: string): Promise<boolean> {
    const { rows } = await sql<{ covered: boolean }>`
      select case when ${after}::int8 = 0 then coalesce(min(id), 1) = 1
        else exists (select from ${this.table} p where p.id = ${after}::int8) end as covered
      from ${this.table}`.execute(this.reader);
    return rows[0]?.covered ?? false;
  }

  private poll(): void {
    if (this.listeners.size === 0) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    this.deliver()
      .catch(() => {})
      .finally(() => {
        this.polling = false;
        if (!this.pollAgain) return;
        this.pollAgain = false;
        this.poll();
      });
  }

  private async deliver(): Promise<void> {
    const wokenAt = this.wokenAt;
    this.wokenAt = null;
    if (this.delivered === undefined) {
      // What "committed after subscribe()" means is fixed here, so it is asked on the pool the writes use: asked
      // first, it is sent before a write made after the call commits. On the reader's connections of their own
      // (opened now, on a first subscription) nothing orders it against such a write, which it could miss.
      this.delivered = await this.latestOn(this.db);
      return;
    }
    for (;;) {
      const batch = await this.since(this.delivered, POLL_BATCH);
      if (batch === null) {
        for (const listener of this.listeners) queueMicrotask(() => listener.lost());
        this.delivered = await this.latest();
        return;
      }
      if (batch.length === 0) return;
      this.delivered = batch.at(-1)!.id;
      traceEventsRead(batch, wokenAt);
      // Each listener apart: one that throws neither stops the others nor the reading of the log.
      for (const listener of this.listeners) queueMicrotask(() => listener.events(batch));
      if (batch.length < POLL_BATCH) return;
    }
  }

  /** Canonical values per field of the collection as the catalog knows it now. */
  private eventOf(row: EventRow): ItemEvent {
    const collection = this.catalog.current().collections.get(row.collection);
    const image = (text: string | null): StoredItem | null => {
      if (text === null) return null;
      const rendered = JSON.parse(text) as Record<string, unknown>;
      const item: Record<string, ScalarValue | null> = Object.create(null);
      for (const [name, value] of Object.entries(rendered)) {
        const field = collection?.fields.find((candidate) => candidate.name === name);
        item[name] = field ? canonicalValueOf(field, value) : (value as ScalarValue | null);
      }
      return item;
    };
    const keyField = collection?.primaryKey
      ? collection.fields.find((field) => field.name === collection.primaryKey)
      : undefined;
    return {
      id: row.id,
      collection: row.collection,
      action: row.action,
      key: (keyField ? canonicalValueOf(keyField, row.key) : row.key) as ScalarValue,
      before: image(row.before),
      after: image(row.after),
    };
  }
}
