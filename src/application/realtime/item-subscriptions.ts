import type { Accountability } from '../../domain/accountability.ts';
import type { DatabaseWork } from '../../domain/database-work.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';

/** What a subscriber is told of one change it may see, shaped as the item API shapes it. */
export type SubscriptionEvent = {
  readonly event: 'create' | 'update' | 'delete';
  /** The change's position in the log (ItemEvent.id): SSE's event id, what `Last-Event-ID` resumes after. */
  readonly id: string;
  /**
   * JSON array text: the items as a list answers them, with the subscription's `fields` and the caller's
   * field rules (create, update); the primary keys (delete).
   */
  readonly data: string;
};

/** Why the server ended a subscription (docs/api.md §12): the transport says it in its own terms. */
export type SubscriptionEnd = {
  readonly reason: 'FORBIDDEN' | 'TOKEN_EXPIRED' | 'UNAUTHENTICATED' | 'RESYNC' | 'SHUTDOWN';
  readonly message: string;
};

/** Where a subscription's events go. Called synchronously: a sink must queue, never block. */
export type SubscriptionSink = {
  send(event: SubscriptionEvent): void;
  end(end: SubscriptionEnd): void;
};

export type SubscribeRequest = {
  readonly collection: string;
  /** The list parameters that shape events: `fields`, `filter` (and, for `init`, the rest of a list's). */
  readonly query: RawItemQuery;
  /**
   * Who is subscribing, asked again whenever rights may have changed (a permission, role, user or session
   * change, and at least every second): null once the credential no longer holds (logged out, suspended,
   * expired), which ends the subscription.
   */
  readonly caller: () => Promise<Accountability | null>;
  /** Resume after this log position instead of starting with `init` (SSE's Last-Event-ID). */
  readonly resumeAfter?: string;
  /**
   * The database work of the subscription's `init`, a list the caller's query shapes: bounded as a list is
   * (docs/api.md §4a). Unset: the pool's own bound. Deliveries are not a request's work and run without it.
   */
  readonly work?: DatabaseWork;
};

export type Subscription = {
  /** The current rows as a list answers them (JSON array text), or null when resuming. */
  readonly init: string | null;
  /** The log position the subscription starts after. */
  readonly position: string;
  /**
   * Asks its caller again now (the credential was replaced), after the changes already on their way: every
   * change delivered once it resolves is judged with the rights it finds, or the subscription has ended.
   */
  recheck(): Promise<void>;
  close(): void;
};

/**
 * Realtime subscriptions (docs/api.md §12): confidential at event time — each event is judged with the
 * subscriber's rules as they are when it is delivered; a row leaving the subscriber's view arrives as a
 * `delete`, one entering it as a `create`. Throws the errors a list would (404, 403, 400) before subscribing.
 */
export interface ItemSubscriptions {
  subscribe(request: SubscribeRequest, sink: SubscriptionSink): Promise<Subscription>;
}
