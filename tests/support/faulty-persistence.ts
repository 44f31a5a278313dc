import { unavailableError } from '../../src/adapters/persistence/database-unreachable.ts';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { DatabaseHealth } from '../../src/application/ports/database-health.ts';

/**
 * How calls fail while the fake database is down:
 * - `unavailable`: as the real adapters fail, their driver error translated to SERVICE_UNAVAILABLE;
 * - `driver`: with the driver's error itself, as an adapter that forgot to translate it would.
 */
export type Fault = 'unavailable' | 'driver';

export type FaultyPersistence = {
  /** The in-memory persistence, failing every database call while down. */
  readonly persistence: Persistence;
  down(fault?: Fault): void;
  up(): void;
};

/** Where the fake database "is": it must never reach a caller. */
export const FAKE_DATABASE_ADDRESS = '10.11.12.13:5432';

/** What pg reports when nothing listens at the database's address. */
export function connectionRefused(): Error {
  return Object.assign(new Error(`connect ECONNREFUSED ${FAKE_DATABASE_ADDRESS}`), {
    code: 'ECONNREFUSED',
    address: '10.11.12.13',
    port: 5432,
  });
}

/** Served from memory in the real adapters too (no I/O), so they work during an outage. */
const IN_MEMORY_METHODS = new Set(['current']);

/**
 * The in-memory persistence behind a switch: while down, every repository, schema and item-store call
 * rejects before touching the data (so nothing is written), and the health check reports the failure.
 */
export function faultyPersistence(inner: Persistence = createInMemoryPersistence()): FaultyPersistence {
  let fault: Fault | null = null;
  const failure = () => {
    const error = connectionRefused();
    return fault === 'unavailable' ? unavailableError(error)! : error;
  };
  const faulty = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function' || IN_MEMORY_METHODS.has(String(key))) return value;
        return (...args: unknown[]) =>
          fault ? Promise.reject(failure()) : Reflect.apply(value, target, args);
      },
    });
  const health: DatabaseHealth = {
    check: async () =>
      fault
        ? { status: 'error', detail: 'connection refused (ECONNREFUSED)', responseTimeMs: 0 }
        : inner.health.check(),
  };
  return {
    persistence: {
      users: faulty(inner.users),
      roles: faulty(inner.roles),
      permissions: faulty(inner.permissions),
      refreshTokens: faulty(inner.refreshTokens),
      schema: faulty(inner.schema),
      schemaEditor: faulty(inner.schemaEditor),
      items: faulty(inner.items),
      activity: faulty(inner.activity),
      unfinishedUploads: faulty(inner.unfinishedUploads),
      // Files' bytes: a map in memory, which no database outage touches; large objects are the database's.
      ...(inner.files ? { files: inner.files } : {}),
      ...(inner.largeObjects ? { largeObjects: faulty(inner.largeObjects) } : {}),
      health,
      migrate: (setUp) => inner.migrate(setUp),
      close: () => inner.close(),
    },
    down(next = 'unavailable') {
      fault = next;
    },
    up() {
      fault = null;
    },
  };
}
