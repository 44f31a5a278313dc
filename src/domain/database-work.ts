/**
 * What a request asks of the database, which decides how long one of its statements may run
 * (`database.statementTimeout`): a reader's query, a writer's change, or an administrator's work (schema
 * changes, bulk edits), which may legitimately take longer.
 */
export type DatabaseWorkKind = 'read' | 'write' | 'admin';

/**
 * The database side of a request, set by the HTTP edge on its caller (`Accountability.work`) and handed by the
 * handlers to the stores with each read and write: the statement timeout of its `kind`; `caller`, which names
 * the caller the same way across their requests (a user, or an anonymous client address); and `readsOnly`
 * (GET, HEAD, SEARCH). Read replicas use the last two: only a request that reads only may go to one, and a
 * caller who has just written reads from the primary until a replica has caught up with them. Absent, the
 * work is not a request's (start-up, the command line, realtime deliveries; a subscription's `init` is read as
 * its request's work, on the primary): the pool's own timeout, the primary. Passed along rather than kept in an AsyncLocalStorage, whose promise hooks cost every promise of
 * the process (docs/decisions/0059).
 */
export type DatabaseWork = {
  readonly kind: DatabaseWorkKind;
  readonly caller: string;
  readonly readsOnly: boolean;
};
