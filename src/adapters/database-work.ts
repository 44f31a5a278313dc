import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a request asks of the database, which decides how long one of its statements may run
 * (`database.statementTimeout`): a reader's query, a writer's change, or an administrator's work (schema
 * changes, bulk edits), which may legitimately take longer.
 */
export type DatabaseWorkKind = 'read' | 'write' | 'admin';

const current = new AsyncLocalStorage<DatabaseWorkKind>();

/**
 * Runs `work` as database work of `kind`: every statement it sends, however deep, is bounded by that
 * kind's timeout. Carried along the async chain rather than through the ports, because it is a concern of
 * the HTTP edge (which knows the request) and of the connection (which applies it), not of any handler.
 */
export function runAsDatabaseWork<T>(kind: DatabaseWorkKind, work: () => Promise<T>): Promise<T> {
  return current.run(kind, work);
}

/** The kind of the request being served; undefined outside one (start-up, migrations, the CLI). */
export function currentDatabaseWork(): DatabaseWorkKind | undefined {
  return current.getStore();
}
