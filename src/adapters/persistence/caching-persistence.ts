import type { Change, ChangeFeed } from '../../application/ports/change-feed.ts';
import { type Metrics, NO_METRICS } from '../../application/ports/metrics.ts';
import type { SchemaCatalog } from '../../application/ports/schema-catalog.ts';
import { InProcessChangeFeed } from '../in-process-change-feed.ts';
import { AnnouncingSchemaEditor } from './announcing-schema-editor.ts';
import { CachingPermissionRepository } from './caching-permission-repository.ts';
import { CachingRefreshTokenRepository } from './caching-refresh-token-repository.ts';
import { CachingRoleRepository } from './caching-role-repository.ts';
import { CachingUserRepository } from './caching-user-repository.ts';
import type { Persistence } from './persistence.ts';

/**
 * A schema re-read that fails is tried again this much later, a few times; a database away for longer
 * takes the change feed with it, whose return re-reads everything anyway.
 */
const SCHEMA_RETRY_MS = 1000;
const SCHEMA_RETRIES = 5;

/** The cached persistence, with the change feed that keeps its caches coherent across instances. */
export type CachedPersistence = Persistence & { readonly changes: ChangeFeed };

/**
 * The same persistence with the in-process caches in front of the repositories the request path reads,
 * wired so that a change through one drops what it affects in another (a deleted role's holders, a
 * deleted user's sessions), and subscribed to the persistence's change feed so that a change made through
 * another instance or by SQL drops the same, and a lost feed drops everything. One call, one set of
 * caches: the composition root calls it once per container. See docs/decisions/0005-in-process-caches.md
 * and 0015-cross-instance-invalidation.md.
 */
export function cachingPersistence(
  persistence: Persistence,
  metrics: Pick<Metrics, 'cache'> = NO_METRICS,
): CachedPersistence {
  const changes = persistence.changes ?? new InProcessChangeFeed();
  const coherence = changes;
  const refreshTokens = new CachingRefreshTokenRepository(persistence.refreshTokens, {
    coherence,
    meter: metrics.cache('sessions'),
  });
  const users = new CachingUserRepository(persistence.users, refreshTokens, {
    coherence,
    meters: { byId: metrics.cache('users'), byDigest: metrics.cache('user_tokens') },
  });
  const roles = new CachingRoleRepository(persistence.roles, users, {
    coherence,
    meter: metrics.cache('roles'),
  });
  const permissions = new CachingPermissionRepository(
    persistence.permissions,
    coherence,
    metrics.cache('permissions'),
  );
  const schema = refresherOf(persistence.schema);
  changes.subscribe({
    changed(change: Change) {
      switch (change.kind) {
        case 'user':
          return users.forgetUser(change.id);
        case 'role':
          return roles.forgetRole(change.id);
        case 'permissions':
          return permissions.invalidate();
        case 'session':
          return refreshTokens.forgetSession(change.id);
        case 'schema':
          return schema.refresh();
      }
    },
    lost() {
      users.forgetAll();
      roles.forgetAll();
      refreshTokens.forgetAll();
      permissions.invalidate();
      schema.refresh();
    },
  });
  return {
    users,
    roles,
    refreshTokens,
    permissions,
    changes,
    health: persistence.health,
    schema: persistence.schema,
    schemaEditor: new AnnouncingSchemaEditor(persistence.schemaEditor, changes),
    items: persistence.items,
    activity: persistence.activity,
    unfinishedUploads: persistence.unfinishedUploads,
    migrate: (setUp) => persistence.migrate(setUp),
    close: () => persistence.close(),
  };
}

/** Containers sharing one persistence (tests) share its catalog: one re-read serves them all. */
const refreshers = new WeakMap<SchemaCatalog, SchemaRefresher>();

function refresherOf(catalog: SchemaCatalog): SchemaRefresher {
  let refresher = refreshers.get(catalog);
  if (!refresher) {
    refresher = new SchemaRefresher(catalog);
    refreshers.set(catalog, refresher);
  }
  return refresher;
}

/**
 * Re-reads the schema catalog on a change made elsewhere; a burst of changes costs one re-read in flight
 * and at most one after it. The read rules follow by themselves: they are
 * memoized on the snapshot and the permission objects, which both change identity here.
 */
class SchemaRefresher {
  private retry: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;

  constructor(private readonly catalog: SchemaCatalog) {}

  refresh(attempt = 1): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.catalog
      .refresh()
      .then(
        () => undefined,
        () => {
          if (attempt >= SCHEMA_RETRIES) return;
          this.retry = setTimeout(() => this.refresh(attempt + 1), SCHEMA_RETRY_MS);
          this.retry.unref();
        },
      )
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }
}
