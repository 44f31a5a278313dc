import type { ScalarValue } from '../../domain/query/filter.ts';
import type { StoredItem } from './item-store.ts';

/**
 * One committed change to one item, as every instance learns of it (docs/api.md §12). Recorded by the
 * item writer in the transaction of the write itself, so a change is an event exactly when it commits.
 */
export type ItemEvent = {
  /**
   * The event's position in the change log: a decimal integer, increasing in the order events become
   * visible, so `since(id)` resumes after it without a gap or a repeat.
   */
  readonly id: string;
  readonly collection: string;
  readonly action: 'create' | 'update' | 'delete';
  /** The item's primary key, canonical (the collection's key type). */
  readonly key: ScalarValue;
  /** Every column before the change (update, delete) and after it (create, update), canonical; else null. */
  readonly before: StoredItem | null;
  readonly after: StoredItem | null;
};

/** The largest position a log can give out: its ids are PostgreSQL int8s. */
const MAX_POSITION = 9_223_372_036_854_775_807n;

/**
 * Whether `text` is a position as a log gives them out (`ItemEvent.id`): a decimal integer without a
 * leading zero, within int8. Every reader of a position (the SSE route, each feed) checks it the same way, so a
 * position no log could have given out is refused at the edge instead of failing in a query.
 */
export function isLogPosition(text: string): boolean {
  return /^(0|[1-9]\d{0,18})$/.test(text) && BigInt(text) <= MAX_POSITION;
}

export interface ItemEventListener {
  /** Events in log order, each once, in batches as they arrive. */
  events(batch: ReadonlyArray<ItemEvent>): void;
  /**
   * Events may have been missed and cannot be recovered (the channel was lost for longer than the log
   * keeps events): whoever relies on seeing every change must start over.
   */
  lost(): void;
}

/** The change log of the items, on every instance: what realtime subscriptions are fed from. */
export interface ItemEventFeed {
  /** Delivers the events committed after this call; returns the unsubscribe. */
  subscribe(listener: ItemEventListener): () => void;
  /**
   * The events after position `after` (exclusive), oldest first, at most `limit`; null when `after` is
   * not a position this log still covers (pruned, or never given out), so a resumption must start over.
   */
  since(after: string, limit: number): Promise<ItemEvent[] | null>;
  /** The position of the latest event ('0' when none): a new subscriber resumes from there. */
  latest(): Promise<string>;
}
