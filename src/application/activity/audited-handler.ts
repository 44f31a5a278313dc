import type { Accountability } from '../../domain/accountability.ts';
import type { ActivityLog } from '../ports/activity-log.ts';

type CallerHandler = { execute(caller: Accountability, request: never): Promise<unknown> };
type RequestOf<H extends CallerHandler> = Parameters<H['execute']>[1];
type ResultOf<H extends CallerHandler> = Awaited<ReturnType<H['execute']>>;

/** What a handler's success records: the system area, the action, and the record (from the request or the answer). */
export type AuditRule<H extends CallerHandler> = {
  readonly collection: string;
  readonly action: 'create' | 'update' | 'delete';
  readonly item: (request: RequestOf<H>, result: ResultOf<H>) => string | null;
};

/**
 * The handler, recording an activity entry after each success (docs/api.md §14): for the system areas
 * whose writes go through the ORM's own transactions (users, roles, permissions, the schema), which the
 * activity log cannot join, so the entry follows the commit instead of sharing it (docs/decisions/0033).
 * The entry names the record only, never its values: no password, token or hash can reach it. An entry
 * that cannot be written does not turn the committed change into an error.
 */
export function audited<H extends CallerHandler>(handler: H, log: ActivityLog, rule: AuditRule<H>): H {
  const execute = handler.execute.bind(handler) as (
    caller: Accountability,
    request: RequestOf<H>,
  ) => Promise<ResultOf<H>>;
  const recorded = async (caller: Accountability, request: RequestOf<H>): Promise<ResultOf<H>> => {
    const result = await execute(caller, request);
    await log
      .record([
        {
          action: rule.action,
          user: caller.user,
          ip: caller.origin?.ip ?? null,
          userAgent: caller.origin?.userAgent ?? null,
          origin: caller.origin?.origin ?? null,
          collection: rule.collection,
          item: rule.item(request, result),
        },
      ])
      .catch(() => {});
    return result;
  };
  return new Proxy(handler, {
    get: (target, key, receiver) => (key === 'execute' ? recorded : Reflect.get(target, key, receiver)),
  });
}
