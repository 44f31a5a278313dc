import { ListeningConnection } from './listening-connection.ts';

/**
 * The channel a transaction that records events notifies, with an empty payload: it says "the log has
 * more", never what (docs/decisions/0032-item-events-wake-up-and-watch.md). PostgreSQL delivers it at commit
 * and drops it at rollback, and folds a transaction's identical notifications into one.
 */
export const ITEM_EVENTS_CHANNEL = 'datagate_item_events';

/** What the change log's reader is told by its wake-up channel. */
export type WakeUpListener = {
  /** A transaction that recorded events has committed: read the log now. */
  woken(): void;
  /** The channel is lost: wake-ups may be missed until `listening` is told again. */
  lost(): void;
  /** The channel listens (first, or again after a loss): anything committed meanwhile is in the log. */
  listening(): void;
};

/** Wakes the change log's reader when events commit, on every instance of the database. */
export interface ItemEventWakeUps {
  /** Starts listening; called once. */
  start(listener: WakeUpListener): void;
  close(): Promise<void>;
}

export type PostgresWakeUpsOptions = {
  url: string;
  connectMs: number;
  /** How often the connection is asked something, so that a network gone silent is noticed. */
  heartbeatMs?: number;
};

const DEFAULT_HEARTBEAT_MS = 1000;

/**
 * On a PostgreSQL server: a connection of its own holding `LISTEN datagate_item_events`, as the cache
 * channel's (postgres-change-feed.ts), with the same lifecycle (listening-connection.ts): an error, an end or
 * an unanswered heartbeat is `lost`; it then reconnects with backoff, and says `listening` once it listens
 * again.
 */
export class PostgresItemEventWakeUps implements ItemEventWakeUps {
  private connection: ListeningConnection | undefined;

  constructor(private readonly options: PostgresWakeUpsOptions) {}

  start(listener: WakeUpListener): void {
    this.connection = new ListeningConnection({
      url: this.options.url,
      connectMs: this.options.connectMs,
      applicationName: 'datagate item events',
      channel: ITEM_EVENTS_CHANNEL,
      heartbeatMs: this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      beat: async (client) => {
        await client.query('select 1');
      },
      heard: () => listener.woken(),
      listening: () => listener.listening(),
      lost: () => listener.lost(),
    });
    this.connection.start();
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }
}

/** The part of an embedded PGlite that hands out notifications. */
export type NotificationSource = {
  onNotification(callback: (channel: string, payload: string) => void): () => void;
};

/**
 * On embedded PGlite: one session in this process, so every write, by the API or by hand, runs here. The
 * session listens (the statement goes through the shared connection, outside any transaction, so that no
 * rollback can undo it) and PGlite hands each notification to a callback; nothing can be lost.
 */
export class PgliteItemEventWakeUps implements ItemEventWakeUps {
  private stopListening: (() => void) | undefined;
  private starting: Promise<void> | undefined;

  constructor(
    private readonly source: NotificationSource,
    private readonly execute: (statement: string) => Promise<void>,
  ) {}

  start(listener: WakeUpListener): void {
    this.stopListening = this.source.onNotification((channel) => {
      if (channel === ITEM_EVENTS_CHANNEL) listener.woken();
    });
    this.starting = this.execute(`listen ${ITEM_EVENTS_CHANNEL}`).then(
      () => listener.listening(),
      () => {},
    );
  }

  async close(): Promise<void> {
    this.stopListening?.();
    await this.starting;
  }
}
