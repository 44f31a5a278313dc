/**
 * What changed in the records the in-process caches copy: ids only, never a secret (a static token is a
 * change of its user). Small on purpose, as it travels as a PostgreSQL NOTIFY payload (≤ 8000 bytes).
 */
export type Change =
  | { kind: 'user'; id: string }
  | { kind: 'role'; id: string }
  /** Any permission: the permission cache holds them all and reloads them as one. */
  | { kind: 'permissions' }
  /** A session (refresh-token family) revoked, rotated or removed. */
  | { kind: 'session'; id: string }
  /** A collection or field created, changed or dropped. */
  | { kind: 'schema' };

/** Told of every change published by any instance (this one included), and of a lost channel. */
export interface ChangeListener {
  changed(change: Change): void;
  /**
   * Drop everything: changes may have been missed (the channel was lost, or has just come back), or one
   * was too wide to name (a TRUNCATE). While `live` is false the listener must not serve what it holds.
   */
  lost(): void;
}

/**
 * `listener`: `ok` while changes made elsewhere are heard, `reconnecting` while the channel is lost,
 * `in-process` where there is no elsewhere (one process on embedded or in-memory storage).
 * `schema`: how schema changes made by hand are noticed.
 */
export type ChangeFeedStatus = {
  listener: 'ok' | 'reconnecting' | 'in-process';
  schema: 'event-trigger' | 'fingerprint' | 'in-process';
};

/** The channel that keeps the caches of every instance on one database coherent. */
export interface ChangeFeed {
  /** Whether changes made elsewhere are being heard now; while false, caches read through. */
  readonly live: boolean;
  status(): ChangeFeedStatus;
  /**
   * Tells every other instance (this one may hear it too); call it once the change is committed. Changes
   * to datagate's own tables need no call: triggers publish them within the writing transaction.
   */
  publish(change: Change): Promise<void>;
  subscribe(listener: ChangeListener): void;
  close(): Promise<void>;
}
