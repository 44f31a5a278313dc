import pg from 'pg';

/** The part of pg's connection (one per pooled client) that knows which statements it has prepared. */
type WireConnection = pg.Connection & {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  close(message: { type: 'S'; name: string }): void;
  stream: { cork?: () => void; uncork?: () => void };
};

/** What this module keeps per connection: its statements, least recently used first, and those to close. */
type Prepared = { readonly names: Map<string, true>; readonly stale: Set<string> };

const preparedByConnection = new WeakMap<WireConnection, Prepared>();

/** PostgreSQL's "cached plan must not change result type": the statement must be prepared anew. */
const PLAN_RESULT_CHANGED = '0A000';

/**
 * A statement run as a named prepared statement on whichever pooled connection runs it, with at most
 * `bound` of them per connection: pg remembers every name it has prepared on a connection for as long as
 * the connection lives, so, before preparing one more, the least recently used one is closed (the
 * protocol's Close message, DEALLOCATE's twin) in the same round trip as the new Parse.
 *
 * It goes to pg as the "SQL" of a Kysely CompiledQuery: Kysely hands that to `client.query()` untouched,
 * so a request still takes its connection the way every other statement does (the statement timeout per
 * request runs on reserving it). pg runs an object with a `submit` method as is and returns it, and Kysely
 * awaits it, hence `then`.
 *
 * A statement whose plan PostgreSQL refuses after its table changed (`PLAN_RESULT_CHANGED`) is forgotten
 * on that connection and closed before its next Parse there; the caller runs it once more unprepared.
 */
export class PreparedStatementQuery extends pg.Query implements PromiseLike<pg.QueryResult> {
  /**
   * Settles when the statement has run: what `then` follows, and what a caller may await without the extra
   * step a thenable costs.
   */
  readonly result: Promise<pg.QueryResult>;

  constructor(
    readonly name: string,
    readonly text: string,
    values: ReadonlyArray<unknown>,
    readonly bound: number,
  ) {
    super({ name, text, values: [...values] });
    const self = this as unknown as { callback: (error: Error | undefined, result: pg.QueryResult) => void };
    this.result = new Promise((resolve, reject) => {
      self.callback = (error, result) => (error ? reject(error) : resolve(result));
    });
  }

  // biome-ignore lint/suspicious/noThenProperty: pg returns this object from client.query() and Kysely awaits it
  then<T1 = pg.QueryResult, T2 = never>(
    onFulfilled?: ((value: pg.QueryResult) => T1 | PromiseLike<T1>) | null,
    onRejected?: ((reason: unknown) => T2 | PromiseLike<T2>) | null,
  ): Promise<T1 | T2> {
    return this.result.then(onFulfilled, onRejected);
  }
}

type QueryInternals = {
  submit(connection: pg.Connection): void;
  handleError(error: Error, connection: WireConnection): void;
};
const { submit, handleError } = pg.Query.prototype as unknown as QueryInternals;

// On the prototype, not set on each query as closures: two functions fewer per statement, and every query
// pg's client is handed has one shape. Assigned after the class: pg's types declare `submit` a property,
// which a class method may not override.
PreparedStatementQuery.prototype.submit = function submitPrepared(
  this: PreparedStatementQuery,
  connection: pg.Connection,
) {
  const wire = connection as WireConnection;
  wire.stream.cork?.();
  try {
    retireFor(wire, this.name, this.bound);
    return submit.call(this, connection);
  } finally {
    wire.stream.uncork?.();
  }
};
(PreparedStatementQuery.prototype as unknown as QueryInternals).handleError = function handlePreparedError(
  this: PreparedStatementQuery,
  error: Error,
  connection: WireConnection,
) {
  if ((error as { code?: string }).code === PLAN_RESULT_CHANGED) forget(connection, this.name);
  handleError.call(this, error, connection);
};

/** Makes room for `name` on the connection and closes what must go, before it is parsed there. */
function retireFor(connection: WireConnection, name: string, bound: number): void {
  let prepared = preparedByConnection.get(connection);
  if (!prepared) {
    prepared = { names: new Map(), stale: new Set() };
    preparedByConnection.set(connection, prepared);
  }
  if (prepared.stale.size > 0) {
    for (const stale of prepared.stale) connection.close({ type: 'S', name: stale });
    prepared.stale.clear();
  }
  if (prepared.names.delete(name)) {
    prepared.names.set(name, true);
    return;
  }
  while (prepared.names.size >= bound) {
    const oldest = prepared.names.keys().next().value!;
    prepared.names.delete(oldest);
    delete connection.parsedStatements[oldest];
    connection.close({ type: 'S', name: oldest });
  }
  prepared.names.set(name, true);
}

/** Drops `name` on this connection: pg parses it again next time, after it is closed on the server. */
function forget(connection: WireConnection, name: string): void {
  delete connection.parsedStatements[name];
  delete connection.submittedNamedStatements[name];
  const prepared = preparedByConnection.get(connection);
  prepared?.names.delete(name);
  prepared?.stale.add(name);
}

/** Whether a failed statement is worth running once more unprepared. */
export function isPlanResultChanged(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === PLAN_RESULT_CHANGED;
}
