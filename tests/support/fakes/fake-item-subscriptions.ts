import type {
  ItemSubscriptions,
  SubscribeRequest,
  Subscription,
  SubscriptionEnd,
  SubscriptionEvent,
  SubscriptionSink,
} from '../../../src/application/realtime/item-subscriptions.ts';
import { DomainError, notFound } from '../../../src/domain/errors.ts';

/** One subscription as the fake holds it: what was asked, where its events go, whether it was closed. */
export type FakeSubscriber = {
  readonly request: SubscribeRequest;
  readonly sink: SubscriptionSink;
  closed: boolean;
};

/**
 * ItemSubscriptions without a database: one collection, `cargos`, whose rows are `init`; a change log the
 * test appends to (`publish`), kept from position `oldest` on, replayed to a subscription that resumes;
 * every subscriber sees every event (the real subscriptions' confidentiality is tested on them).
 */
export class FakeItemSubscriptions implements ItemSubscriptions {
  readonly subscribers: FakeSubscriber[] = [];
  private readonly log: SubscriptionEvent[] = [];
  /** Positions at or after this one can be resumed after; older ones ask for a resync. */
  oldest = 0;
  init = '[]';
  /** While set, a subscription waits for it before it is made, as one does on its `init` query. */
  gate: Promise<void> | null = null;
  /** How many subscriptions are waiting for the gate. */
  waiting = 0;

  async subscribe(request: SubscribeRequest, sink: SubscriptionSink): Promise<Subscription> {
    if (request.collection !== 'cargos') throw notFound('Collection');
    if (this.gate) {
      this.waiting++;
      await this.gate;
    }
    const caller = await request.caller();
    if (!caller) throw new DomainError('UNAUTHENTICATED', 'Authentication is required to do this.');
    const subscriber: FakeSubscriber = { request, sink, closed: false };
    this.subscribers.push(subscriber);
    const position = String(this.log.length);
    const close = () => {
      subscriber.closed = true;
    };
    const recheck = () => this.recheck();
    if (request.resumeAfter === undefined) return { init: this.init, position, recheck, close };
    const after = Number(request.resumeAfter);
    if (after < this.oldest || after > this.log.length) {
      sink.end({ reason: 'RESYNC', message: 'Too long away: start over.' });
    } else {
      for (const event of this.log.slice(after)) sink.send(event);
    }
    return { init: null, position, recheck, close };
  }

  /** Appends a change and hands it to every open subscription. */
  publish(event: 'create' | 'update' | 'delete', items: unknown[]): SubscriptionEvent {
    const change = { event, id: String(this.log.length + 1), data: JSON.stringify(items) };
    this.log.push(change);
    for (const subscriber of this.open()) subscriber.sink.send(change);
    return change;
  }

  /** Re-asks every subscriber's caller, as the real subscriptions do when rights may have changed. */
  async recheck(): Promise<void> {
    for (const subscriber of this.open()) {
      let end: SubscriptionEnd = { reason: 'UNAUTHENTICATED', message: 'The credential no longer holds.' };
      try {
        if (await subscriber.request.caller()) continue;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'TOKEN_EXPIRED')) throw error;
        end = { reason: 'TOKEN_EXPIRED', message: error.message };
      }
      subscriber.closed = true;
      subscriber.sink.end(end);
    }
  }

  endAll(end: SubscriptionEnd): void {
    for (const subscriber of this.open()) {
      subscriber.closed = true;
      subscriber.sink.end(end);
    }
  }

  open(): FakeSubscriber[] {
    return this.subscribers.filter((subscriber) => !subscriber.closed);
  }
}
