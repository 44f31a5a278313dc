import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a request asks of the database, which decides how long one of its statements may run
 * (`database.statementTimeout`): a reader's query, a writer's change, or an administrator's work (schema
 * changes, bulk edits), which may legitimately take longer.
 */
export type DatabaseWorkKind = 'read' | 'write' | 'admin';

/**
 * Who the request acts for, as far as the database cares: `caller` names them the same way across their
 * requests (a user, or an anonymous client address), and `readsOnly` says the request changes nothing (GET,
 * HEAD). Read replicas use both: only a request that reads only may go to one, and a caller who has just
 * written reads from the primary until a replica has caught up with them.
 */
export type DatabaseCaller = { readonly caller: string; readonly readsOnly: boolean };

type DatabaseWork = { readonly kind: DatabaseWorkKind; readonly caller?: DatabaseCaller };

const current = new AsyncLocalStorage<DatabaseWork>();

/**
 * Runs `work` as database work of `kind`: every statement it sends, however deep, is bounded by that
 * kind's timeout. Carried along the async chain rather than through the ports, because it is a concern of
 * the HTTP edge (which knows the request) and of the connection (which applies it), not of any handler.
 */
export function runAsDatabaseWork<T>(
  kind: DatabaseWorkKind,
  work: () => Promise<T>,
  caller?: DatabaseCaller,
): Promise<T> {
  return current.run(caller ? { kind, caller } : { kind }, work);
}

/** The kind of the request being served; undefined outside one (start-up, migrations, the CLI). */
export function currentDatabaseWork(): DatabaseWorkKind | undefined {
  return current.getStore()?.kind;
}

/** The caller of the request being served; undefined outside one or when the edge did not say. */
export function currentDatabaseCaller(): DatabaseCaller | undefined {
  return current.getStore()?.caller;
}
