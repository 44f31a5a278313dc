import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { User } from '../../../domain/user.ts';
import type { Persistence } from '../persistence.ts';
import { InMemoryActivityLog } from './in-memory-activity-log.ts';
import { InMemoryFileStorage } from './in-memory-file-storage.ts';
import { FILES_TABLE } from './in-memory-files-table.ts';
import { InMemoryItemEventLog } from './in-memory-item-event-log.ts';
import { InMemoryItemStore } from './in-memory-item-store.ts';
import { InMemoryPermissionRepository } from './in-memory-permission-repository.ts';
import { InMemoryRefreshTokenRepository } from './in-memory-refresh-token-repository.ts';
import { InMemoryRoleRepository } from './in-memory-role-repository.ts';
import { InMemorySchema } from './in-memory-schema.ts';
import { InMemoryUnfinishedUploads } from './in-memory-unfinished-uploads.ts';
import { InMemoryUserRepository } from './in-memory-user-repository.ts';

/** `realtime.replayWindow`'s default. */
const DEFAULT_REPLAY_WINDOW_MS = 5 * 60 * 1000;

export type InMemoryPersistenceOptions = {
  /** Records the items' change log, keeping each event this long (`realtime.*`); absent, none is kept. */
  readonly itemEvents?: { readonly replayWindowMs: number; readonly now?: () => number };
};

export function createInMemoryPersistence(
  options: InMemoryPersistenceOptions = { itemEvents: { replayWindowMs: DEFAULT_REPLAY_WINDOW_MS } },
): Persistence {
  // The log reads the schema (who may see what) and the schema records into the log: one is made first.
  let activity: InMemoryActivityLog | undefined;
  const record = (entry: ActivityEntry) => activity!.append(entry);
  const roles = new InMemoryRoleRepository(record);
  const refreshTokens = new InMemoryRefreshTokenRepository((id): User | undefined => users.stored(id));
  const users = new InMemoryUserRepository(roles, refreshTokens, record);
  const permissions = new InMemoryPermissionRepository(roles, record);
  const schema = new InMemorySchema(record);
  schema.registerCollection(FILES_TABLE);
  const itemEvents = options.itemEvents && new InMemoryItemEventLog(options.itemEvents);
  activity = new InMemoryActivityLog(schema);
  return {
    users,
    roles,
    permissions,
    refreshTokens,
    schema,
    schemaEditor: schema,
    items: new InMemoryItemStore(schema, itemEvents, activity),
    activity,
    unfinishedUploads: new InMemoryUnfinishedUploads(),
    files: new InMemoryFileStorage(),
    ...(itemEvents ? { itemEvents } : {}),
    health: { check: async () => ({ status: 'ok', responseTimeMs: 0 }) },
    migrate: async (setUp) => {
      await setUp?.();
    },
    close: async () => {},
  };
}
