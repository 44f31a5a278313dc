import type pg from 'pg';
import type {
  Change,
  ChangeFeed,
  ChangeFeedStatus,
  ChangeListener,
} from '../../../application/ports/change-feed.ts';
import { ListeningConnection } from '../postgres/listening-connection.ts';

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
  private readonly connection: ListeningConnection;
  private schemaMode: ChangeFeedStatus['schema'] = 'fingerprint';
  private fingerprint: string | undefined;
  private beats = 0;
  private started = false;

  constructor(private readonly options: PostgresChangeFeedOptions) {
    this.connection = new ListeningConnection({
      url: options.url,
      connectMs: options.connectMs,
      applicationName: 'datagate listener',
      channel: CHANGES_CHANNEL,
      heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      prepare: async (client) => {
        this.schemaMode = await this.schemaModeOf(client);
        this.fingerprint = await this.fingerprintOf(client);
      },
      beat: (client) => this.beat(client),
      heard: (payload) => this.heard(payload),
      // Whatever changed while nobody listened is read fresh from here on.
      listening: () => this.tellLost(),
      lost: () => this.tellLost(),
    });
  }

  get live(): boolean {
    return this.connection.live;
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
      this.connection.start();
    }
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** A question the connection must answer in time; without an event trigger, the schema's fingerprint. */
  private async beat(client: pg.Client): Promise<void> {
    this.schemaMode = await this.schemaModeOf(client);
    if (this.schemaMode === 'event-trigger' || ++this.beats % FINGERPRINT_EVERY !== 0) return;
    const fingerprint = await this.fingerprintOf(client);
    if (!this.connection.holds(client) || fingerprint === this.fingerprint) return;
    this.fingerprint = fingerprint;
    this.tell({ kind: 'schema' });
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
