import { Kysely, PostgresDialect } from 'kysely';
import { quietPool } from './quiet-pool.ts';

/**
 * The live read and, beside it, a new subscriber's `latest` or a resumption's replay: the reader never waits on
 * itself for more than one statement.
 */
const READER_CONNECTIONS = 2;

export type ItemEventReaderSettings = {
  readonly url: string;
  readonly connectMs: number;
  /** `statement_timeout` of its statements (`database.queryTimeout`); unset: none. */
  readonly queryMs?: number;
};

/**
 * Where the change log is read on a PostgreSQL server: connections of its own, like the wake-ups' LISTEN
 * (docs/decisions/0047). On the serving pool a read that a NOTIFY asked for queued behind the requests — the
 * very writes whose events it was to read — and that wait was most of the delivery latency under load.
 */
export function itemEventReaderDatabase(settings: ItemEventReaderSettings): Kysely<unknown> {
  return new Kysely<unknown>({
    dialect: new PostgresDialect({
      pool: quietPool({
        connectionString: settings.url,
        application_name: 'datagate item events reader',
        max: READER_CONNECTIONS,
        connectionTimeoutMillis: settings.connectMs,
        ...(settings.queryMs === undefined
          ? {}
          : { statement_timeout: settings.queryMs, query_timeout: settings.queryMs + settings.connectMs }),
        keepAlive: true,
      }),
    }),
  });
}
