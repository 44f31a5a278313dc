import type { ResolveAccountabilityHandler } from '../../../application/auth/resolve-accountability.ts';
import { isLogPosition } from '../../../application/ports/item-events.ts';
import type { ItemSubscriptions } from '../../../application/realtime/item-subscriptions.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import { DomainError } from '../../../domain/errors.ts';
import { invalidQuery } from '../../../domain/query/invalid-query.ts';
import type { RawItemQuery } from '../../../domain/query/parse-item-query.ts';
import { sharedWhilePending } from '../../shared-while-pending.ts';
import type { Authenticated } from '../authenticated.ts';
import { presentedToken } from '../bearer-token.ts';
import type { RouteContext, RouteMiddleware } from '../http-state.ts';
import { itemQuery, singleParameter } from '../item-query-string.ts';
import { WriteRounds } from '../write-rounds.ts';
import { EventStream } from './event-stream.ts';
import type { SseSettings } from './sse-settings.ts';
import { StreamQuota } from './stream-quota.ts';

export type ItemEventsRouteDependencies = {
  readonly subscriptions: ItemSubscriptions;
  readonly resolveCaller: ResolveAccountabilityHandler;
  readonly authenticated: Authenticated;
  readonly settings: SseSettings;
};

/**
 * GET /items/:collection/events (docs/api.md §12): the changes the caller may see, as Server-Sent Events.
 * The subscription is set up as any read is (within the caller's share of requests, its errors answered as
 * JSON); the stream then runs outside that share, and the request ends, for the access log and the metrics,
 * when the stream does.
 */
export function itemEventsRoute({
  subscriptions,
  resolveCaller,
  authenticated,
  settings,
}: ItemEventsRouteDependencies): RouteMiddleware {
  const quota = new StreamQuota(settings.streamsPerUser, settings.streamsPerAddress);
  const rounds = new WriteRounds(settings.writeIntervalMs);
  // Every stream's subscription re-asks its credential together (the hub's recheck): alike ones share it.
  const resolve = sharedWhilePending((token: string | null) => resolveCaller.execute(null, { token }));
  return async (ctx, next) => {
    let opened: { stream: EventStream; init: { position: string; data: string | null } } | undefined;
    await authenticated(async (ctx, caller) => {
      const query = subscriptionQuery(ctx);
      const resumeAfter = lastEventId(ctx);
      const token = presentedToken(ctx, settings.allowQueryToken);
      const stream = new EventStream(ctx.res, settings, rounds);
      stream.whenClosed(quota.take(caller.user, ctx.ip));
      try {
        const subscription = await subscriptions.subscribe(
          {
            collection: ctx.params.collection!,
            query,
            caller: () => currentCaller(resolve, token),
            ...(caller.work ? { work: caller.work } : {}),
            ...(resumeAfter === undefined ? {} : { resumeAfter }),
          },
          stream,
        );
        stream.whenClosed(() => subscription.close());
        opened = { stream, init: { position: subscription.position, data: subscription.init } };
      } catch (error) {
        stream.abandon();
        throw error;
      }
    })(ctx, next);
    if (!opened) return;
    ctx.status = 200;
    ctx.respond = false;
    opened.stream.open(opened.init);
    // HEAD asks for the headers only: a stream without a body would never end.
    if (ctx.method === 'HEAD') opened.stream.abandon();
    await opened.stream.closed;
  };
}

/** The list parameters that shape the events; the token and the resume position are not among them. */
function subscriptionQuery(ctx: RouteContext): RawItemQuery {
  const { access_token: _token, last_event_id: _position, ...query } = itemQuery(ctx);
  return query;
}

/**
 * `Last-Event-ID`, which EventSource sends when it reconnects, or `?last_event_id=` for clients that cannot
 * set headers; an empty one is none. Only a position the server gave out is accepted.
 */
function lastEventId(ctx: RouteContext): string | undefined {
  const header = ctx.get('Last-Event-ID');
  const parameter = singleParameter(ctx, 'last_event_id');
  const value = header === '' ? parameter : header;
  if (value === undefined || value === '') return undefined;
  if (!isLogPosition(value)) {
    throw invalidQuery('Last-Event-ID must be the id of an event this server sent.', {
      field: 'last_event_id',
      reason: 'INVALID_VALUE',
    });
  }
  return value;
}

/** The caller as its credential says now; null once the credential no longer holds. */
async function currentCaller(
  resolve: (token: string | null) => Promise<Accountability>,
  token: string | null,
): Promise<Accountability | null> {
  try {
    return await resolve(token);
  } catch (error) {
    // An expired token ends the stream as TOKEN_EXPIRED (thrown on), anything else the credential says as UNAUTHENTICATED.
    if (error instanceof DomainError && error.code !== 'TOKEN_EXPIRED') return null;
    throw error;
  }
}
