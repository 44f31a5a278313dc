import {
  type ItemEvent,
  type ItemEventFeed,
  type ItemEventListener,
  isLogPosition,
} from '../../../application/ports/item-events.ts';

/** An event as a writer records it; the log gives it its position when the transaction commits. */
export type RecordedItemEvent = Omit<ItemEvent, 'id'>;

export type InMemoryItemEventLogOptions = {
  /** How long an event stays readable by `since` (`realtime.replayWindow`), in milliseconds. */
  readonly replayWindowMs: number;
  /** The time in milliseconds; a test moves it to see events pruned. */
  readonly now?: () => number;
};

type LoggedEvent = { readonly event: ItemEvent; readonly at: number };

/**
 * The change log of the in-memory store: one process, so committing a transaction appends its events
 * and hands them to the listeners then and there. Positions are consecutive integers, which makes "is
 * this position still covered" a comparison. Events older than the replay window are dropped as new ones
 * arrive and whenever the log is read, so no timer is needed.
 */
export class InMemoryItemEventLog implements ItemEventFeed {
  private readonly events: LoggedEvent[] = [];
  private readonly listeners = new Set<ItemEventListener>();
  private last = 0;
  /** The newest position pruned: `since` cannot answer for anything older. */
  private prunedThrough = 0;
  private readonly now: () => number;

  constructor(private readonly options: InMemoryItemEventLogOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Called by a committing writer, once its rows are published; an empty batch is no event. */
  append(recorded: ReadonlyArray<RecordedItemEvent>): void {
    if (recorded.length === 0) return;
    const at = this.now();
    const batch = recorded.map((event) => ({ ...event, id: String(++this.last) }));
    for (const event of batch) this.events.push({ event, at });
    this.prune();
    for (const listener of this.listeners) {
      // After the commit has returned: a listener's failure is its own, never the write's.
      queueMicrotask(() => listener.events(batch));
    }
  }

  subscribe(listener: ItemEventListener): () => void {
    // A listener of its own identity, so subscribing the same object twice yields two deliveries.
    const own: ItemEventListener = { events: (batch) => listener.events(batch), lost: () => listener.lost() };
    this.listeners.add(own);
    return () => {
      this.listeners.delete(own);
    };
  }

  async since(after: string, limit: number): Promise<ItemEvent[] | null> {
    this.prune();
    if (!isLogPosition(after)) return null;
    const position = Number(after);
    if (position < this.prunedThrough || position > this.last) return null;
    const first = this.events.findIndex(({ event }) => Number(event.id) > position);
    if (first < 0) return [];
    return this.events.slice(first, first + Math.max(0, limit)).map(({ event }) => event);
  }

  async latest(): Promise<string> {
    return String(this.last);
  }

  private prune(): void {
    const oldest = this.now() - this.options.replayWindowMs;
    let dropped = 0;
    while (dropped < this.events.length && this.events[dropped]!.at < oldest) dropped++;
    if (dropped === 0) return;
    this.prunedThrough = Number(this.events[dropped - 1]!.event.id);
    this.events.splice(0, dropped);
  }
}
