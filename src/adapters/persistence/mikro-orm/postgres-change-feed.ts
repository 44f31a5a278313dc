import pg from 'pg';
import type {
  Change,
  ChangeFeed,
  ChangeFeedStatus,
  ChangeListener,
} from '../../../application/ports/change-feed.ts';

/** The one channel every instance listens on and every trigger of migration 0004 notifies. */
export const CHANGES_CHANNEL = 'datagate_changes';

/** The event trigger of migration 0004, present where the role that migrated could create one. */
const EVENT_TRIGGER = 'datagate_schema_changes';

export type PostgresChangeFeedOptions = {
  url: string;
  connectMs: number;
  /** The PostgreSQL schema of the collections, whose columns the fingerprint covers. */
  schema: string;
  /** Sends one NOTIFY on the serving pool (the listening connection may be the one that is lost). */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * How often the listening connection is asked something: a network gone silent is noticed within
   * twice this. Each beat also sees whether the event trigger exists (it appears when the first instance
   * migrates, after the others may have connected); without it, the schema's fingerprint is compared every
   * `FINGERPRINT_EVERY` beats.
   */
  heartbeatMs?: number;
};

const DEFAULT_HEARTBEAT_MS = 1000;
/** Five seconds by default: without an event trigger, a schema change by hand is seen within about that. */
const FINGERPRINT_EVERY = 5;
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5000;

/**
 * A cheap digest of the collections' tables, columns and foreign keys (relations, with their actions and
 * the one-to-many name kept in their comment): what changes when one is created, altered or dropped by
 * hand, where no event trigger announces it.
 */
const FINGERPRINT = `
  select md5(coalesce((select string_agg(
    c.relname || '.' || coalesce(a.attname, '') || ':' || coalesce(a.atttypid::text, '') || ':'
      || coalesce(a.atttypmod::text, '') || ':' || coalesce(a.attnotnull::text, '') || ':'
      || coalesce(a.atthasdef::text, ''),
    ',' order by c.relname, a.attnum)
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  where n.nspname = $1 and c.relkind in ('r', 'p')), '') || '|' || coalesce((select string_agg(
    c.relname || '.' || con.conname || ':' || con.confrelid::text || ':' || con.confdeltype::text
      || con.confupdtype::text || ':' || coalesce(obj_description(con.oid, 'pg_constraint'), ''),
    ',' order by c.relname, con.conname)
  from pg_constraint con
  join pg_class c on c.oid = con.conrelid
  join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = $1 and con.contype = 'f'), '')) as fingerprint`;

/**
 * The change feed on a PostgreSQL server: a connection of its own (not from the pool, which hands
 * connections around and resets them) holding `LISTEN datagate_changes`. Triggers on datagate's tables
 * notify the channel inside the writing transaction, so a change is heard once it is committed and never
 * before; schema changes are announced by an event trigger where one could be created, else noticed by a
 * fingerprint of the collections' columns taken every heartbeat.
 *
 * Missed messages are never silent: when the connection errs, ends, or leaves a heartbeat unanswered, the
 * feed stops being `live` and tells every listener to drop everything, then reconnects with backoff; once
 * listening again it tells them once more (anything changed meanwhile is read fresh) and is live again.
 * It connects on the first subscription, so commands that never serve open no listening connection.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly listeners: ChangeListener[] = [];
  private client: pg.Client | undefined;
  private schemaMode: ChangeFeedStatus['schema'] = 'fingerprint';
  private fingerprint: string | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  /** The connection attempt under way, which `close` waits for so that no socket outlives it. */
  private connecting: Promise<void> | undefined;
  private retryMs = FIRST_RETRY_MS;
  private beats = 0;
  private started = false;
  private closed = false;

  constructor(private readonly options: PostgresChangeFeedOptions) {}

  get live(): boolean {
    return this.client !== undefined;
  }

  status(): ChangeFeedStatus {
    return { listener: this.live ? 'ok' : 'reconnecting', schema: this.schemaMode };
  }

  async publish(change: Change): Promise<void> {
    await this.options.notify(CHANGES_CHANNEL, JSON.stringify(change));
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
    if (!this.started) {
      this.started = true;
      this.connecting = this.connect();
    }
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
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: 'datagate listener',
      connectionTimeoutMillis: this.options.connectMs,
      query_timeout: this.heartbeatMs(),
      keepAlive: true,
    });
    client.on('error', () => this.dropped(client));
    client.on('end', () => this.dropped(client));
    client.on('notification', (message) => {
      if (client === this.client) this.heard(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
      this.schemaMode = await this.schemaModeOf(client);
      this.fingerprint = await this.fingerprintOf(client);
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
    this.heartbeat = setInterval(() => void this.beat(client), this.heartbeatMs());
    this.heartbeat.unref();
    // Whatever changed while nobody listened is read fresh from here on.
    this.tellLost();
  }

  private dropped(client: pg.Client): void {
    client.end().catch(() => {});
    if (client !== this.client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.tellLost();
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

  /** A question the connection must answer in time; without an event trigger, the schema's fingerprint. */
  private async beat(client: pg.Client): Promise<void> {
    try {
      this.schemaMode = await this.schemaModeOf(client);
      if (this.schemaMode === 'event-trigger' || ++this.beats % FINGERPRINT_EVERY !== 0) return;
      const fingerprint = await this.fingerprintOf(client);
      if (client !== this.client || fingerprint === this.fingerprint) return;
      this.fingerprint = fingerprint;
      this.tell({ kind: 'schema' });
    } catch {
      this.dropped(client);
    }
  }

  private async schemaModeOf(client: pg.Client): Promise<ChangeFeedStatus['schema']> {
    const { rows } = await client.query<{ present: boolean }>(
      `select exists (select from pg_event_trigger where evtname = $1 and evtenabled <> 'D') as present`,
      [EVENT_TRIGGER],
    );
    return rows[0]?.present ? 'event-trigger' : 'fingerprint';
  }

  private async fingerprintOf(client: pg.Client): Promise<string> {
    const { rows } = await client.query<{ fingerprint: string }>(FINGERPRINT, [this.options.schema]);
    return rows[0]?.fingerprint ?? '';
  }

  /** A payload this version cannot read (a newer instance's, or garbage) drops everything: never silent. */
  private heard(payload: string | undefined): void {
    const change = changeOf(payload);
    if (change) this.tell(change);
    else this.tellLost();
  }

  private tell(change: Change): void {
    for (const listener of this.listeners) listener.changed(change);
  }

  private tellLost(): void {
    for (const listener of this.listeners) listener.lost();
  }

  private heartbeatMs(): number {
    return this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  }
}

const WITH_ID = new Set(['user', 'role', 'session']);

function changeOf(payload: string | undefined): Change | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload ?? '');
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { kind, id } = parsed as { kind?: unknown; id?: unknown };
  if (kind === 'permissions' || kind === 'schema') return { kind };
  if (typeof kind === 'string' && WITH_ID.has(kind) && typeof id === 'string') {
    return { kind: kind as 'user' | 'role' | 'session', id };
  }
  return undefined;
}
