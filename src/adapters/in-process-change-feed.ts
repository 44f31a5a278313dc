import type {
  Change,
  ChangeFeed,
  ChangeFeedStatus,
  ChangeListener,
} from '../application/ports/change-feed.ts';

/**
 * The change feed of a single process (in-memory storage, embedded PGlite, which one process owns): every
 * change is made here, and the caches drop what it affects as it is made, so there is nobody to tell and
 * nothing to miss. PGlite could LISTEN/NOTIFY within the process, but with nobody else on the database
 * that channel would carry nothing.
 */
export class InProcessChangeFeed implements ChangeFeed {
  readonly live = true;
  status(): ChangeFeedStatus {
    return { listener: 'in-process', schema: 'in-process' };
  }

  async publish(_change: Change): Promise<void> {}

  subscribe(_listener: ChangeListener): void {}

  async close(): Promise<void> {}
}
