import type {
  ItemEvent,
  ItemEventFeed,
  ItemEventListener,
} from '../../../src/application/ports/item-events.ts';
import type { StoredItem } from '../../../src/application/ports/item-store.ts';
import type { Ticker } from '../../../src/application/realtime/realtime-hub.ts';
import type { ScalarValue } from '../../../src/domain/query/filter.ts';

/** An item change log held in memory: tests `emit` events as the item writer would record them. */
export class FakeItemEventFeed implements ItemEventFeed {
  private readonly listeners = new Set<ItemEventListener>();
  private readonly log: ItemEvent[] = [];

  subscribe(listener: ItemEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async since(after: string, limit: number): Promise<ItemEvent[] | null> {
    const position = Number(after);
    if (!Number.isInteger(position) || position > this.log.length) return null;
    return this.log.slice(position, position + limit);
  }

  async latest(): Promise<string> {
    return String(this.log.length);
  }

  /** Records one change and delivers it to every listener as a batch of one. */
  emit(collection: string, key: ScalarValue, before: StoredItem | null, after: StoredItem | null): ItemEvent {
    const action = before === null ? 'create' : after === null ? 'delete' : 'update';
    const event: ItemEvent = { id: String(this.log.length + 1), collection, action, key, before, after };
    this.log.push(event);
    for (const listener of this.listeners) listener.events([event]);
    return event;
  }

  lose(): void {
    for (const listener of this.listeners) listener.lost();
  }
}

/** A ticker the test advances by hand: `tick()` runs what a second of wall time would. */
export class ManualTicker implements Ticker {
  private readonly ticks = new Set<() => void>();

  every(_ms: number, tick: () => void): () => void {
    this.ticks.add(tick);
    return () => this.ticks.delete(tick);
  }

  tick(): void {
    for (const tick of this.ticks) tick();
  }
}
