import { channel } from 'node:diagnostics_channel';
import type { ItemEvent } from '../application/ports/item-events.ts';
import type { SubscriptionEvent } from '../application/realtime/item-subscriptions.ts';

/**
 * Where a change is on its way from the log to the subscribers' sockets, told on Node's diagnostics
 * channels for whoever measures it in the server's process (`make bench-realtime` loads
 * bench/realtime-probe.mjs with `--import`). Nobody listens in production: each publish is then one check.
 */
const eventsRead = channel('datagate:realtime:events-read');
const eventSent = channel('datagate:realtime:event-sent');
const roundWritten = channel('datagate:realtime:round-written');

/** What `datagate:realtime:events-read` carries. */
export type EventsRead = {
  readonly events: ReadonlyArray<ItemEvent>;
  /**
   * `performance.now()` when the first wake-up (the NOTIFY of a commit) this read answers was heard;
   * null when the timer read the log.
   */
  readonly wokenAt: number | null;
};

/** A batch was read from the log and is handed to the hub now. */
export function traceEventsRead(events: ReadonlyArray<ItemEvent>, wokenAt: number | null): void {
  if (eventsRead.hasSubscribers) eventsRead.publish({ events, wokenAt } satisfies EventsRead);
}

/**
 * The first socket of a group of alike views is sent this event's message now: the others follow in the
 * same tick, and their writes leave when the round ends.
 */
export function traceEventSent(event: SubscriptionEvent): void {
  if (eventSent.hasSubscribers) eventSent.publish(event);
}

/** A round of writes has ended: every stream it held has been written what it was sent (WriteRounds). */
export function traceRoundWritten(streams: number): void {
  if (roundWritten.hasSubscribers) roundWritten.publish({ streams });
}
