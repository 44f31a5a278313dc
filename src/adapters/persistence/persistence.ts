import type { ActivityLog } from '../../application/ports/activity-log.ts';
import type { ChangeFeed } from '../../application/ports/change-feed.ts';
import type { DatabaseHealth } from '../../application/ports/database-health.ts';
import type { FileStorage } from '../../application/ports/file-storage.ts';
import type { ItemEventFeed } from '../../application/ports/item-events.ts';
import type { ItemStore } from '../../application/ports/item-store.ts';
import type { PoolUsage } from '../../application/ports/metrics.ts';
import type { PermissionRepository } from '../../application/ports/permission-repository.ts';
import type { RefreshTokenRepository } from '../../application/ports/refresh-token-repository.ts';
import type { RoleRepository } from '../../application/ports/role-repository.ts';
import type { SchemaCatalog, SchemaEditor } from '../../application/ports/schema-catalog.ts';
import type { UnfinishedUploads } from '../../application/ports/unfinished-uploads.ts';
import type { UserRepository } from '../../application/ports/user-repository.ts';
import type { CollectionWatch } from '../../application/realtime/collection-watch.ts';

/** Everything one storage backend provides; the composition root opens one and binds its parts. */
export interface Persistence {
  readonly users: UserRepository;
  readonly roles: RoleRepository;
  readonly permissions: PermissionRepository;
  readonly refreshTokens: RefreshTokenRepository;
  readonly health: DatabaseHealth;
  /** The user tables (collections); call `schema.refresh()` once before serving. */
  readonly schema: SchemaCatalog;
  readonly schemaEditor: SchemaEditor;
  readonly items: ItemStore;
  /** Who changed what (docs/api.md §14); the item store records item writes into it itself. */
  readonly activity: ActivityLog;
  /** The unfinished resumable uploads of each user (docs/api.md §15), as every instance counts them. */
  readonly unfinishedUploads: UnfinishedUploads;
  /**
   * Files' bytes in this database's large objects, for `storage.driver: postgres`; absent without a
   * database (in memory).
   */
  readonly largeObjects?: FileStorage;
  /**
   * Files' bytes that this backend keeps itself whatever `storage.driver` says: in memory, a map, so that
   * an app on the in-memory backend (the tests') writes no file to a disk or a bucket.
   */
  readonly files?: FileStorage;
  /**
   * How this instance hears of changes made by others on the same database (docs/decisions/0015); absent
   * where nobody else can make any (one process on its own storage).
   */
  readonly changes?: ChangeFeed;
  /**
   * The items' change log that realtime subscriptions are fed from (docs/api.md §12); absent where this
   * backend records none (realtime off), which the composition root serves as a silent feed.
   */
  readonly itemEvents?: ItemEventFeed;
  /**
   * Recording the writes made by hand in SQL (`datagate realtime watch`); absent where there is no SQL to
   * write by hand (in memory).
   */
  readonly watch?: CollectionWatch;
  /**
   * The connections of the primary database, for the metrics; undefined before the pool exists, absent
   * where there is no connection (in memory).
   */
  poolUsage?(): PoolUsage | undefined;
  /**
   * Brings the system tables up to date (a no-op where there are no tables), then runs `setUp` before any
   * other datagate process may migrate: instances starting together on an empty database create one first
   * admin, not one each (or fail on the second's unique e-mail).
   */
  migrate(setUp?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}
