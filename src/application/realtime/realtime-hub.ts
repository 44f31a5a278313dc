import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';
import { changedOnlyHiddenFields } from '../../domain/permissions/hidden-change.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import {
  assertFilterQueryable,
  assertKeyQueryable,
  projectFields,
} from '../../domain/permissions/readable-fields.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import { matchesFilter } from '../../domain/query/evaluate-filter.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import { invalidQuery } from '../../domain/query/invalid-query.ts';
import type { ItemQuery } from '../../domain/query/item-query.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema, SchemaSnapshot } from '../../domain/schema/collection-schema.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { ListItemsHandler } from '../items/list-items.ts';
import { parseFlatAsCaller } from '../items/parse-as-caller.ts';
import type { ReadRules } from '../items/read-rules.ts';
import { searchCondition } from '../items/row-conditions.ts';
import type { ChangeFeed } from '../ports/change-feed.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemEvent, ItemEventFeed } from '../ports/item-events.ts';
import type { SelectedField, StoredItem } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { ItemJsonFormat } from './item-json-format.ts';
import type {
  ItemSubscriptions,
  SubscribeRequest,
  Subscription,
  SubscriptionEnd,
  SubscriptionEvent,
  SubscriptionSink,
} from './item-subscriptions.ts';

/**
 * The list parameters that ask for something other than items. A subscription delivers items, so it cannot
 * answer them; ignored, its `init` would be the rows where the same query on a list answers an aggregate.
 */
const AGGREGATE_PARAMETERS = ['aggregate', 'groupBy'] as const;

function refuseAggregates(query: RawItemQuery): void {
  for (const name of AGGREGATE_PARAMETERS) {
    if (Object.hasOwn(query, name)) {
      throw invalidQuery(`"${name}" is not supported in a subscription, which delivers items.`, {
        reason: 'UNSUPPORTED_PARAMETER',
      });
    }
  }
}

/** Events read from the log at a time while a resumption catches up. */
const REPLAY_PAGE = 10_000;

/** How often rights are re-asked even when no change was heard (REALTIME-SPEC: within one second). */
export const RECHECK_INTERVAL_MS = 1_000;

/** A subscriber's view as it is now: re-judged on every rights recheck, used for every event until the next. */
type View = {
  readonly caller: Accountability;
  readonly rule: ReadRule;
  readonly select: ReadonlyArray<SelectedField>;
  readonly filter: BoundFilterNode | null;
  /**
   * Subscribers with the same key judge and shape every row alike (same row rule, filter and selection):
   * one evaluation, one formatting and one message per event serve them all.
   */
  readonly groupKey: string;
};

type Subscriber = {
  readonly request: SubscribeRequest;
  readonly sink: SubscriptionSink;
  readonly query: ItemQuery;
  /**
   * The collection and raw query as text, and the schema `query` was parsed against: with the caller, all
   * a view is made of (see `recheckAll`).
   */
  readonly queryKey: string;
  readonly parsedIn: SchemaSnapshot;
  view: View;
  closed: boolean;
  /**
   * The log position this subscriber has been judged up to: an event at or before it is never judged again,
   * so a resumption's replay and the live batches it overlaps deliver each change once.
   */
  judgedUpTo: bigint;
  /** Resuming: the replay, not the live batches, brings it every change until it has caught up. */
  replaying: boolean;
};

/** What a group of alike views is told of one event; UNJUDGED when its view could not be evaluated. */
const UNJUDGED = Symbol('unjudged');

/** Why a subscription whose view could not judge an event ends: it missed that event. */
const UNJUDGED_END: SubscriptionEnd = {
  reason: 'RESYNC',
  message: 'An event could not be judged for this subscription; subscribe again.',
};

/** Timers, injectable so tests tick the recheck by hand. */
export type Ticker = { every(ms: number, tick: () => void): () => void };

const REAL_TICKER: Ticker = {
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/**
 * Realtime subscriptions over the items' change log (docs/api.md §12, docs/decisions/0031): one feed
 * subscription for the process; each event judged per subscriber with the rule it holds now, shaped in
 * process, once per group of subscribers sharing rule and fields.
 */
export class RealtimeHub implements ItemSubscriptions {
  private readonly byCollection = new Map<string, Set<Subscriber>>();
  /** Batches and rechecks run one after another, so a subscriber never sees events out of order. */
  private queue: Promise<void> = Promise.resolve();
  /**
   * The events queued last and not yet being delivered: batches that arrive meanwhile join it, so a hub that
   * fell behind delivers them in one round (one write per socket, not one per event).
   */
  private waiting: ItemEvent[] | null = null;
  private stopFeed: (() => void) | null = null;
  private stopTicker: (() => void) | null = null;

  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly list: ListItemsHandler,
    private readonly feed: ItemEventFeed,
    private readonly changes: ChangeFeed | null,
    private readonly format: ItemJsonFormat,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
    private readonly ticker: Ticker = REAL_TICKER,
  ) {}

  async subscribe(request: SubscribeRequest, sink: SubscriptionSink): Promise<Subscription> {
    const caller = await request.caller();
    if (caller === null) throw new DomainError('UNAUTHENTICATED', 'Authentication is required.');
    const collection = collectionFor(this.catalog, caller, request.collection);
    const parsedIn = this.catalog.current();
    // The right to read first, as a list checks it: a caller who may not read the collection hears the same
    // refusal whatever the query, so that neither the collection's existence nor its fields' names leak.
    const rule = await this.rules.for(caller, collection, this.clock.now());
    refuseAggregates(request.query);
    // Flat fields and filters only: parsed without the relations, a path is an unknown field whatever it
    // names, so that a refusal tells nothing of collections the caller may not read (docs/api.md §12).
    const query = parseFlatAsCaller(caller, collection, rule, () =>
      parseItemQuery(request.query, collection, this.limits),
    );
    const view = await this.viewOf(caller, collection, query, this.clock.now());
    this.start();
    const position = request.resumeAfter ?? (await this.feed.latest());
    // The init is read where the position was just taken, the primary (`readsOnly: false`): a replica
    // behind it would miss the changes between the two, which the log would then not replay either.
    const initCaller = request.work ? { ...caller, work: { ...request.work, readsOnly: false } } : caller;
    const init =
      request.resumeAfter === undefined
        ? (await this.list.execute(initCaller, { collection: request.collection, query: request.query })).json
        : null;
    const queryKey = JSON.stringify([request.collection, request.query]);
    const replaying = request.resumeAfter !== undefined;
    const subscriber: Subscriber = {
      request,
      sink,
      query,
      queryKey,
      parsedIn,
      view,
      closed: false,
      // Every change up to the position had committed before `init` was read, so `init` holds it: one still
      // waiting in the queue (behind a recheck, a slow round) would repeat it, a `create` of a row it has.
      judgedUpTo: BigInt(position),
      replaying,
    };
    let set = this.byCollection.get(collection.name);
    if (!set) {
      set = new Set();
      this.byCollection.set(collection.name, set);
    }
    set.add(subscriber);
    if (request.resumeAfter !== undefined)
      this.enqueue(() => this.replayOrEnd(subscriber, request.resumeAfter ?? '0'));
    return {
      init,
      position,
      recheck: () => this.enqueue(() => this.recheckOne(subscriber, this.clock.now(), new Map())),
      close: () => this.remove(subscriber),
    };
  }

  /** Ends every subscription (graceful shutdown) and lets go of the feeds. */
  shutdown(): void {
    for (const set of this.byCollection.values()) {
      for (const subscriber of set)
        this.end(subscriber, { reason: 'SHUTDOWN', message: 'The server is shutting down.' });
    }
    this.stopFeed?.();
    this.stopTicker?.();
    this.stopFeed = null;
    this.stopTicker = null;
  }

  /** Re-asks every subscriber's rights now (what the ticker and the change feed trigger); resolves when done. */
  recheck(): Promise<void> {
    return this.enqueue(() => this.recheckAll());
  }

  /** Resolves once every batch and recheck queued so far has been delivered (tests, shutdown). */
  settled(): Promise<void> {
    return this.queue;
  }

  private start(): void {
    if (this.stopFeed) return;
    this.stopFeed = this.feed.subscribe({
      events: (batch) => this.queueEvents(batch),
      lost: () =>
        void this.enqueue(async () =>
          this.endAll({ reason: 'RESYNC', message: 'Events were missed; subscribe again.' }),
        ),
    });
    this.changes?.subscribe({ changed: () => void this.recheck(), lost: () => void this.recheck() });
    this.stopTicker = this.ticker.every(RECHECK_INTERVAL_MS, () => void this.recheck());
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.waiting = null;
    this.queue = this.queue.then(work).catch(() => undefined);
    return this.queue;
  }

  /** Joins the events still waiting when nothing was queued after them, else waits behind what was. */
  private queueEvents(batch: ReadonlyArray<ItemEvent>): void {
    if (this.waiting) {
      this.waiting.push(...batch);
      return;
    }
    const events = [...batch];
    this.enqueue(() => {
      if (this.waiting === events) this.waiting = null;
      return this.deliver(events);
    });
    this.waiting = events;
  }

  /**
   * A replay that fails (the log unreadable) must not leave the subscriber waiting for events that will
   * never come: the queue swallows errors so one subscriber cannot stall the others, so it ends here.
   */
  private async replayOrEnd(subscriber: Subscriber, after: string): Promise<void> {
    try {
      await this.replay(subscriber, after);
    } catch {
      this.end(subscriber, {
        reason: 'RESYNC',
        message: 'The changes to resume from could not be read; subscribe again.',
      });
    }
  }

  /**
   * Every event after `after`, page by page until the log has no more: the live batches skip a replaying
   * subscriber, so whatever they held before the replay ends is in these pages (and what they hold after it
   * that the pages had already brought is skipped by `judgedUpTo`).
   */
  private async replay(subscriber: Subscriber, after: string): Promise<void> {
    for (let from = after; ; ) {
      const events = await this.feed.since(from, REPLAY_PAGE);
      if (events === null) {
        this.end(subscriber, {
          reason: 'RESYNC',
          message: 'The position to resume from is no longer kept; subscribe again.',
        });
        return;
      }
      await this.deliver(
        events.filter((event) => event.collection === subscriber.request.collection),
        [subscriber],
      );
      const last = events.at(-1);
      if (last) subscriber.judgedUpTo = BigInt(last.id);
      // A client that went away meanwhile needs no more pages.
      if (events.length < REPLAY_PAGE || !last || subscriber.closed) break;
      from = last.id;
    }
    subscriber.replaying = false;
  }

  private async deliver(batch: ReadonlyArray<ItemEvent>, only?: ReadonlyArray<Subscriber>): Promise<void> {
    for (const event of batch) {
      const subscribers = only ?? [...(this.byCollection.get(event.collection) ?? [])];
      if (subscribers.length === 0) continue;
      const collection = this.catalog.current().collections.get(event.collection);
      if (!collection) continue;
      const position = BigInt(event.id);
      // Judged and shaped once per group of alike views; every member is sent the same message.
      const told = new Map<string, SubscriptionEvent | null | typeof UNJUDGED>();
      for (const subscriber of subscribers) {
        if (subscriber.closed || (subscriber.replaying && !only) || position <= subscriber.judgedUpTo)
          continue;
        subscriber.judgedUpTo = position;
        const { view } = subscriber;
        let message = told.get(view.groupKey);
        if (message === undefined) {
          message = this.judgeOrUnjudged(view, event, collection);
          told.set(view.groupKey, message);
        }
        if (message === UNJUDGED) this.end(subscriber, UNJUDGED_END);
        else if (message !== null) subscriber.sink.send(message);
      }
    }
  }

  /**
   * A view that cannot be evaluated on an event (a filter naming a field the schema no longer has) ends its
   * own subscribers, who missed the event; it must not cost the other subscribers the rest of the batch.
   */
  private judgeOrUnjudged(
    view: View,
    event: ItemEvent,
    collection: CollectionSchema,
  ): SubscriptionEvent | null | typeof UNJUDGED {
    try {
      return this.judge(view, event, collection);
    } catch {
      return UNJUDGED;
    }
  }

  /** REALTIME-SPEC: visibility before and after, each under the rule and the subscription's filter. */
  private judge(view: View, event: ItemEvent, collection: CollectionSchema): SubscriptionEvent | null {
    const before =
      event.before !== null && this.visible(view, event.before, collection) ? event.before : null;
    const after = event.after !== null && this.visible(view, event.after, collection) ? event.after : null;
    if (before === null && after === null) return null;
    if (after === null) return { event: 'delete', id: event.id, data: JSON.stringify([event.key]) };
    // The row stays in view: an update the subscriber can see nothing of would only tell them that a field
    // they may not read changed (docs/decisions/0061).
    if (before !== null && changedOnlyHiddenFields(view.rule, before, after, collection)) return null;
    const data = this.format.format([after], view.select, collection);
    return { event: before !== null ? 'update' : 'create', id: event.id, data };
  }

  private visible(view: View, item: StoredItem, collection: CollectionSchema): boolean {
    if (view.rule.rows !== null && !matchesFilter(view.rule.rows, item, collection)) return false;
    return view.filter === null || matchesFilter(view.filter, item, collection);
  }

  /**
   * Every subscriber at once, not one after another: batches queued meanwhile wait for the whole recheck (the
   * point where new rights take effect), so its length is a delay every second. Its moment is one, and so is
   * the view of subscribers with the same caller and query: a thousand subscribers of one role and one query
   * cost one rule lookup, plus their credentials (which the transports share while one is being asked).
   */
  private async recheckAll(): Promise<void> {
    const now = this.clock.now();
    const views = new Map<SchemaSnapshot, Map<string, Promise<View>>>();
    const subscribers = [...this.byCollection.values()].flatMap((set) => [...set]);
    await Promise.all(subscribers.map((subscriber) => this.recheckOne(subscriber, now, views)));
  }

  private async recheckOne(
    subscriber: Subscriber,
    now: Date,
    views: Map<SchemaSnapshot, Map<string, Promise<View>>>,
  ): Promise<void> {
    try {
      const caller = await subscriber.request.caller();
      if (subscriber.closed) return;
      if (caller === null) {
        this.end(subscriber, { reason: 'UNAUTHENTICATED', message: 'The credential no longer holds.' });
        return;
      }
      const key = JSON.stringify([
        caller.user,
        caller.role,
        caller.admin,
        caller.session,
        subscriber.queryKey,
      ]);
      let alike = views.get(subscriber.parsedIn);
      if (!alike) {
        alike = new Map();
        views.set(subscriber.parsedIn, alike);
      }
      let view = alike.get(key);
      if (!view) {
        view = this.recheckedView(caller, subscriber, now);
        alike.set(key, view);
      }
      const next = await view;
      if (!subscriber.closed) subscriber.view = next;
    } catch (error) {
      this.end(subscriber, endFor(error));
    }
  }

  /**
   * The subscriber's view as its caller's rights and the schema are now. After a schema change its query is
   * judged again as subscribing anew would judge it, so that a field the collection has lost ends it as that
   * query's refusal would (endFor), rather than as a right lost.
   */
  private async recheckedView(caller: Accountability, subscriber: Subscriber, now: Date): Promise<View> {
    const collection = collectionFor(this.catalog, caller, subscriber.request.collection);
    if (this.catalog.current() !== subscriber.parsedIn) {
      const rule = await this.rules.for(caller, collection, now);
      parseFlatAsCaller(caller, collection, rule, () =>
        parseItemQuery(subscriber.request.query, collection, this.limits),
      );
    }
    return this.viewOf(caller, collection, subscriber.query, now);
  }

  private async viewOf(
    caller: Accountability,
    collection: CollectionSchema,
    query: ItemQuery,
    now: Date,
  ): Promise<View> {
    const rule = await this.rules.for(caller, collection, now);
    // A delete is told by the row's key: a subscriber who may not filter on the key would read its values
    // there (docs/decisions/0072-naming-a-row-by-key-needs-the-key-readable.md).
    assertKeyQueryable(caller, rule, collection);
    const select = projectFields(caller, rule, query.fields);
    if (query.filter) assertFilterQueryable(caller, rule, query.filter);
    const conditions: BoundFilterNode[] = [];
    if (query.filter) {
      conditions.push(
        bindDynamicValues(query.filter, { user: caller.user, role: caller.role, now }, collection),
      );
    }
    if (query.search !== null) conditions.push(searchCondition(rule, collection, query.search));
    const filter = conditions.length === 0 ? null : allOf(conditions);
    // What a subscriber is told depends on these alone (masks included, every value bound): alike views share
    // it. The rule's fields decide whether an update is told at all, whatever the selection shows of them.
    const groupKey = JSON.stringify([rule.rows, [...rule.fields], filter, select]);
    return { caller, rule, select, filter, groupKey };
  }

  private endAll(end: SubscriptionEnd): void {
    for (const set of this.byCollection.values())
      for (const subscriber of [...set]) this.end(subscriber, end);
  }

  private end(subscriber: Subscriber, end: SubscriptionEnd): void {
    if (subscriber.closed) return;
    this.remove(subscriber);
    subscriber.sink.end(end);
  }

  private remove(subscriber: Subscriber): void {
    subscriber.closed = true;
    this.byCollection.get(subscriber.request.collection)?.delete(subscriber);
  }
}

/**
 * Why a recheck ends a subscription. A schema change is rechecked too: a query naming a field the collection
 * has lost ends RESYNC, as when an event cannot be judged for it (subscribing again answers that query's
 * refusal); a dropped collection, which only an admin is told of (others are refused FORBIDDEN whether or
 * not it exists), ends FORBIDDEN saying so.
 */
function endFor(error: unknown): SubscriptionEnd {
  if (error instanceof DomainError) {
    if (error.code === 'UNAUTHENTICATED') return { reason: 'UNAUTHENTICATED', message: error.message };
    if (error.code === 'TOKEN_EXPIRED') return { reason: 'TOKEN_EXPIRED', message: error.message };
    if (error.code === 'INVALID_QUERY') {
      return {
        reason: 'RESYNC',
        message: `The subscription no longer fits the collection (${error.message}); subscribe again.`,
      };
    }
    if (error.code === 'COLLECTION_NOT_FOUND') {
      return { reason: 'FORBIDDEN', message: 'The collection no longer exists.' };
    }
    return { reason: 'FORBIDDEN', message: 'You no longer have permission to read this collection.' };
  }
  return { reason: 'FORBIDDEN', message: 'Your rights could not be confirmed.' };
}
