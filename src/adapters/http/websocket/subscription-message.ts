import type { SubscriptionEvent } from '../../../application/realtime/item-subscriptions.ts';
import { traceEventSent } from '../../realtime-delivery-trace.ts';

/** Each event's messages, by the subscription's `uid` member: kept as long as the hub holds the event, no longer. */
const built = new WeakMap<SubscriptionEvent, Map<string, Buffer>>();

/**
 * A subscription event as a /websocket message (Directus's `{"type":"subscription",…}`), serialized once per
 * event and uid: the hub hands every subscriber of a group of alike views the same event, so a thousand
 * alike subscribers cost one serialization, and their sockets are sent the same bytes. `member` is the
 * subscription's `uidMember`, made once when it subscribed.
 */
export function subscriptionMessage(event: SubscriptionEvent, member: string): Buffer {
  let byUid = built.get(event);
  if (!byUid) {
    byUid = new Map();
    built.set(event, byUid);
    traceEventSent(event);
  }
  let bytes = byUid.get(member);
  if (!bytes) {
    bytes = Buffer.from(
      `{"type":"subscription","event":${JSON.stringify(event.event)},"data":${event.data}${member}}`,
    );
    byUid.set(member, bytes);
  }
  return bytes;
}

/** The `uid` member a message ends with, comma included; none without a uid. */
export const uidMember = (uid: string | number | undefined): string =>
  uid === undefined ? '' : `,"uid":${JSON.stringify(uid)}`;
