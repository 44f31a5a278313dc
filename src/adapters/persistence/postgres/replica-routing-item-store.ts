import type { Kysely } from 'kysely';
import type {
  ItemAggregateRequest,
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
  ItemListResult,
  ItemSnapshot,
  ItemStore,
  ItemWriter,
} from '../../../application/ports/item-store.ts';
import { StaleSchemaError } from '../../../application/ports/item-store.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import type { DatabaseWork } from '../../../domain/database-work.ts';
import { DomainError } from '../../../domain/errors.ts';
import { LruMap } from '../../lru-map.ts';
import { committedPosition, type ReplicaSet, type WalPosition } from './replica-set.ts';

export type ReplicaRoutingOptions = {
  /**
   * How long a caller's reads wait for a replica to replay their write before any replica in service will
   * do: by then every replica in service (at most `maxLagMs` behind at its last probe) has it.
   */
  readYourWritesMs: number;
  /** Callers remembered as having just written, at most (the least recent are forgotten first). */
  maxWriters: number;
  now: () => number;
};

/** On a standby: a query cancelled because replay needed what it read (recovery conflict). */
const RECOVERY_CONFLICT = '40001';

/**
 * An ItemStore over a primary and its read replicas. A request that only reads (GET, per the HTTP edge: its
 * `work.readsOnly`) reads from a replica in service; everything else — writes, the reads inside them, and
 * work outside a request — stays on the primary.
 *
 * Read-your-writes: after a caller's write commits, the primary's log position is kept for the caller, and
 * their reads go only to a replica whose last probe found it replayed past it (else to the primary), for
 * at most `readYourWritesMs`. Other callers may briefly read the state before a write, as from any replica.
 *
 * A replica read that fails because the replica is unreachable (it is then taken out of service until a
 * probe finds it back), busy, in a recovery conflict, or lacking a table or column the primary has (schema
 * changes replay like everything else) is served by the primary instead.
 */
export class ReplicaRoutingItemStore implements ItemStore {
  private readonly writers: LruMap<string, WalPosition | null>;
  private readonly served: number[];

  constructor(
    private readonly primary: ItemStore,
    private readonly primaryDb: Kysely<unknown>,
    private readonly replicas: ReadonlyArray<ItemStore>,
    private readonly replicaSet: ReplicaSet,
    options: ReplicaRoutingOptions,
  ) {
    this.writers = new LruMap({
      maxEntries: options.maxWriters,
      maxAgeMs: options.readYourWritesMs,
      now: options.now,
    });
    this.served = [0, ...replicas.map(() => 0)];
  }

  list(request: ItemListRequest): Promise<ItemListResult> {
    return this.read(request.work, (store) => store.list(request));
  }

  get(request: ItemGetRequest): Promise<string | null> {
    return this.read(request.work, (store) => store.get(request));
  }

  getMany(request: ItemKeysRequest): Promise<string[]> {
    return this.read(request.work, (store) => store.getMany(request));
  }

  aggregate(request: ItemAggregateRequest): Promise<string> {
    return this.read(request.work, (store) => store.aggregate(request));
  }

  /**
   * On the primary; once committed, the caller's reads wait for a replica past the commit. Should the
   * position not be read (the primary went away just after), the caller reads from the primary for
   * `readYourWritesMs`.
   */
  async write<T>(work: (writer: ItemWriter) => Promise<T>, author?: Accountability): Promise<T> {
    const result = await this.primary.write(work, author);
    const caller = author?.work?.caller;
    if (caller !== undefined) {
      this.writers.set(caller, await committedPosition(this.primaryDb).catch(() => null));
    }
    return result;
  }

  /**
   * On a replica in service when the request only reads, as a read would be; on the primary when none
   * can open it. Its reads stay where it was opened: a snapshot cannot move.
   */
  async snapshot(work?: DatabaseWork): Promise<ItemSnapshot> {
    const index = this.replicaFor(work);
    if (index !== undefined) {
      try {
        const snapshot = await this.replicas[index]!.snapshot(work);
        this.served[index + 1]!++;
        return snapshot;
      } catch (error) {
        if (!servedByPrimaryInstead(error)) throw error;
        if (error instanceof DomainError && error.code === 'SERVICE_UNAVAILABLE')
          this.replicaSet.markDown(index);
      }
    }
    const snapshot = await this.primary.snapshot(work);
    this.served[0]!++;
    return snapshot;
  }

  /** Reads served so far: `[primary, replica 1, …]` (what tests look at). */
  readsServed(): ReadonlyArray<number> {
    return [...this.served];
  }

  private async read<T>(work: DatabaseWork | undefined, run: (store: ItemStore) => Promise<T>): Promise<T> {
    const index = this.replicaFor(work);
    if (index === undefined) return this.onPrimary(run);
    try {
      const result = await run(this.replicas[index]!);
      this.served[index + 1]!++;
      return result;
    } catch (error) {
      if (!servedByPrimaryInstead(error)) throw error;
      if (error instanceof DomainError && error.code === 'SERVICE_UNAVAILABLE')
        this.replicaSet.markDown(index);
      return this.onPrimary(run);
    }
  }

  private async onPrimary<T>(run: (store: ItemStore) => Promise<T>): Promise<T> {
    const result = await run(this.primary);
    this.served[0]!++;
    return result;
  }

  private replicaFor(work: DatabaseWork | undefined): number | undefined {
    if (!work?.readsOnly) return undefined;
    return this.replicaSet.pick(this.writers.get(work.caller));
  }
}

function servedByPrimaryInstead(error: unknown): boolean {
  if (error instanceof StaleSchemaError) return true;
  if (error instanceof DomainError)
    return error.code === 'SERVICE_UNAVAILABLE' || error.code === 'SERVICE_BUSY';
  return (error as { code?: unknown } | null)?.code === RECOVERY_CONFLICT;
}
