import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { itemQuery } from '../adapters/http/item-query-string.ts';
import type { ApiOperation } from '../adapters/http/openapi/api-operation.ts';
import { systemQueryParameters } from '../adapters/http/openapi/system-query-parameters.ts';
import { ActivityRetention } from '../application/activity/activity-retention.ts';
import { QueryHistoryHandler } from '../application/activity/query-history.ts';
import { RevertRevisionHandler } from '../application/activity/revert-revision.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import { UpdateItemsHandler } from '../application/items/update-items.ts';
import type { QueryLimits } from '../domain/query/parse-item-query.ts';
import { factoryBinder, type Resolve } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/** The revisions' handler, bound apart from the activity's: the same class over the other history. */
class QueryRevisionsHandler extends QueryHistoryHandler {}

const recordId = z.string().describe("The record's id (a positive integer).");

const activityAnswer = z.object({
  id: z.number(),
  action: z.string().describe('`create`, `update`, `delete`, `login`, `logout`, `refresh_failed`…'),
  user: z.string().nullable(),
  timestamp: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  collection: z.string(),
  item: z.string().nullable(),
  origin: z.string().nullable(),
});

const revisionAnswer = z.object({
  id: z.number(),
  activity: z.number(),
  collection: z.string(),
  item: z.string(),
  data: z.record(z.string(), z.unknown()).nullable().describe('The item after the change.'),
  delta: z.record(z.string(), z.unknown()).nullable().describe('The fields the change wrote.'),
});

/**
 * docs/api.md §14: /activity, /revisions and /utils/revert/:revision. The history is confidential by
 * default: what a caller sees follows their read permissions on the items, now (history-visibility.ts).
 */
export const activityModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  const history = (kind: 'activity' | 'revisions') => (get: Resolve) =>
    new QueryHistoryHandler(
      kind,
      get(TYPES.ActivityLog),
      get(TYPES.SchemaCatalog),
      get(ReadRules),
      get(TYPES.Clock),
      get(TYPES.QueryLimits),
    );
  bind(QueryHistoryHandler, history('activity'));
  bind(QueryRevisionsHandler, history('revisions'));
  bind(ActivityRetention, (get) => {
    const { retention, pruneInterval, pruneBatch } = get<AppConfig>(TYPES.Config).activity;
    return new ActivityRetention(get(TYPES.ActivityLog), get(TYPES.Clock), {
      retentionMs: retention,
      intervalMs: pruneInterval,
      batch: pruneBatch,
    });
  });
  bind(
    RevertRevisionHandler,
    (get) => new RevertRevisionHandler(get(QueryRevisionsHandler), get(UpdateItemsHandler)),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const limits = get<QueryLimits>(TYPES.QueryLimits);
    const activity = get(QueryHistoryHandler);
    const revisions = get<QueryHistoryHandler>(QueryRevisionsHandler);
    const revert = get(RevertRevisionHandler);
    return {
      register(router, { authenticated, respond }) {
        for (const [path, handler] of [
          ['/activity', activity],
          ['/revisions', revisions],
        ] as const) {
          router.get(
            path,
            authenticated(async (ctx, caller) => {
              const { data, meta } = await handler.list(caller, itemQuery(ctx));
              respond.sendJson(ctx, JSON.stringify(data), meta);
            }),
          );
          // Not `:id`, which the router keeps for uuids (create-http-app.ts): these ids are integers.
          router.get(
            `${path}/:record`,
            authenticated(async (ctx, caller) =>
              respond.send(ctx, await handler.get(caller, ctx.params.record!, itemQuery(ctx))),
            ),
          );
        }
        router.post(
          '/utils/revert/:revision',
          authenticated(async (ctx, caller) =>
            respond.written(
              ctx,
              await revert.execute(caller, { revision: ctx.params.revision!, query: itemQuery(ctx) }),
            ),
          ),
        );
      },
      api: ({ description }) => {
        const query = systemQueryParameters(limits);
        // A revert reads the revision (the item's read permission) and writes it back (its update one).
        const mayRevert = description.collections.some(({ actions }) => actions.read && actions.update);
        // Anyone, as the routes: the public caller is answered the history of what the public role may read.
        const common = { tag: 'activity', audience: 'anyone' } as const;
        const list = (path: string, operationId: string, summary: string, body: z.ZodType) => ({
          ...common,
          method: 'get' as const,
          path,
          operationId,
          summary,
          query: query.list,
          answers: [
            {
              status: 200,
              description: 'What the query selects of what you may see.',
              body,
              form: 'list' as const,
            },
          ],
          errors: [400, 401, 403] as Array<400 | 401 | 403>,
        });
        const one = (path: string, operationId: string, summary: string, body: z.ZodType) => ({
          ...common,
          method: 'get' as const,
          path,
          operationId,
          summary,
          pathParameters: { record: recordId },
          query: query.single,
          answers: [{ status: 200, description: 'The record.', body }],
          errors: [400, 401, 403, 404] as Array<400 | 401 | 403 | 404>,
        });
        const history: ApiOperation[] = [
          list('/activity', 'listActivity', 'List activity', activityAnswer),
          one('/activity/:record', 'readActivity', 'Read an activity entry', activityAnswer),
          list('/revisions', 'listRevisions', 'List revisions', revisionAnswer),
          one('/revisions/:record', 'readRevision', 'Read a revision', revisionAnswer),
        ];
        const revert: ApiOperation = {
          ...common,
          method: 'post',
          path: '/utils/revert/:revision',
          operationId: 'revertRevision',
          summary: 'Restore an item to a revision',
          description: "Writes the revision's `data` through the item's ordinary update and its permissions.",
          pathParameters: { revision: recordId },
          query: query.single,
          answers: [
            {
              status: 200,
              description: 'The updated item.',
              body: z.record(z.string(), z.unknown()),
            },
            { status: 204, description: 'Written; you may read none of it.' },
          ],
          errors: [400, 401, 403, 404],
        };
        return {
          tags: [
            {
              name: 'activity',
              description:
                'Who changed what: activity entries and item revisions, of the items you may read now.',
            },
          ],
          schemas: { Activity: activityAnswer, Revision: revisionAnswer },
          operations: mayRevert ? [...history, revert] : history,
        };
      },
    };
  });
});
