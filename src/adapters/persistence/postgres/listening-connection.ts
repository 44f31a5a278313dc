import pg from 'pg';

export type ListeningConnectionOptions = {
  readonly url: string;
  readonly connectMs: number;
  /** As `pg_stat_activity` shows the connection. */
  readonly applicationName: string;
  readonly channel: string;
  /** How often the connection is asked something (`beat`), and how long it has to answer. */
  readonly heartbeatMs: number;
  /** Asked once a new connection listens, before it counts as listening; a throw fails that attempt. */
  readonly prepare?: (client: pg.Client) => Promise<void>;
  /** Asked every heartbeat: a throw (the query timed out, the connection broke) is a lost connection. */
  readonly beat: (client: pg.Client) => Promise<void>;
  /** A notification on the channel, heard on the current connection. */
  readonly heard: (payload: string | undefined) => void;
  /** The connection listens (first, or again after a loss): whatever was sent meanwhile was missed. */
  readonly listening: () => void;
  /** The connection is lost: notifications may be missed until `listening` is called again. */
  readonly lost: () => void;
};

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5000;

/**
 * A connection of its own holding `LISTEN <channel>` (a pooled connection is handed around and reset, so it
 * cannot hold one), what both the cache channel (postgres-change-feed.ts) and the change log's wake-ups
 * (item-events-wake-ups.ts) stand on. An error, an end or an unanswered heartbeat is `lost`; it then
 * reconnects with backoff, and says `listening` once it listens again.
 */
export class ListeningConnection {
  private client: pg.Client | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  /** The connection attempt under way, which `close` waits for so that no socket outlives it. */
  private connecting: Promise<void> | undefined;
  private retryMs = FIRST_RETRY_MS;
  private closed = false;

  constructor(private readonly options: ListeningConnectionOptions) {}

  /** Whether a connection listens now. */
  get live(): boolean {
    return this.client !== undefined;
  }

  /** Whether `client` is the connection that listens now (an answer on an older one is stale). */
  holds(client: pg.Client): boolean {
    return client === this.client;
  }

  /** Connects; called once. */
  start(): void {
    this.connecting = this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
    // An attempt still connecting sees `closed` when it is done, and ends its connection itself.
    await this.connecting;
  }

  private async connect(): Promise<void> {
    const { options } = this;
    const client = new pg.Client({
      connectionString: options.url,
      application_name: options.applicationName,
      connectionTimeoutMillis: options.connectMs,
      query_timeout: options.heartbeatMs,
      keepAlive: true,
    });
    client.on('error', () => this.dropped(client));
    client.on('end', () => this.dropped(client));
    client.on('notification', (message) => {
      if (client === this.client) options.heard(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${options.channel}`);
      await options.prepare?.(client);
    } catch {
      await client.end().catch(() => {});
      this.retryLater();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    this.heartbeat = setInterval(() => {
      options.beat(client).catch(() => this.dropped(client));
    }, options.heartbeatMs);
    this.heartbeat.unref();
    options.listening();
  }

  private dropped(client: pg.Client): void {
    client.end().catch(() => {});
    if (client !== this.client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.options.lost();
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed) return;
    this.reconnect = setTimeout(() => {
      this.connecting = this.connect();
    }, this.retryMs);
    this.reconnect.unref();
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
  }
}
