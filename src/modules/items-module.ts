import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import type { HttpContext } from '../adapters/http/http-state.ts';
import { itemQuery } from '../adapters/http/item-query-string.ts';
import { itemsApi } from '../adapters/http/openapi/item-operations.ts';
import { listMetaOf } from '../adapters/http/respond.ts';
import { searchBody, searchQuery } from '../adapters/http/search-body.ts';
import { AggregateItemsHandler } from '../application/items/aggregate-items.ts';
import { CreateItemsHandler } from '../application/items/create-items.ts';
import { DeleteItemsHandler } from '../application/items/delete-items.ts';
import { GetItemHandler } from '../application/items/get-item.ts';
import { ItemCursors } from '../application/items/item-cursors.ts';
import { ListItemsHandler } from '../application/items/list-items.ts';
import { ReadBack } from '../application/items/read-back.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import { UpdateItemsHandler } from '../application/items/update-items.ts';
import type { WriteResult } from '../application/items/write-result.ts';
import { WriteRules } from '../application/items/write-rules.ts';
import type { Metrics } from '../application/ports/metrics.ts';
import type { Accountability } from '../domain/accountability.ts';
import type { RawItemQuery } from '../domain/query/parse-item-query.ts';
import { factoryBinder, type Resolve } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/** Item bodies are schemaless here: the handlers check them against the collection's columns. */
const anyJson = z.unknown();

/** docs/api.md §4b: a list with `aggregate` or `groupBy` answers groups instead of rows. */
function asksForAggregate(query: RawItemQuery): boolean {
  return Object.hasOwn(query, 'aggregate') || Object.hasOwn(query, 'groupBy');
}

/**
 * /items/:collection: reading and writing the rows of the user's tables, within the caller's permissions.
 * The read and write rules are bound here; the server module's API description uses them too.
 */
export const itemsModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  const batchMax = (get: Resolve) => get<AppConfig>(TYPES.Config).query.batchMax;
  const responseMaxBytes = (get: Resolve) => get<AppConfig>(TYPES.Config).query.responseMaxBytes;
  bind(
    ReadRules,
    (get) => new ReadRules(get(TYPES.PermissionRepository), get<Metrics>(TYPES.Metrics).cache('read_rules')),
  );
  bind(WriteRules, (get) => new WriteRules(get(TYPES.PermissionRepository)));
  bind(ReadBack, (get) => new ReadBack(get(ReadRules), get(TYPES.QueryLimits), responseMaxBytes(get)));
  bind(
    ListItemsHandler,
    (get) =>
      new ListItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.ItemStore),
        get(TYPES.Clock),
        get(TYPES.QueryLimits),
        responseMaxBytes(get),
        new ItemCursors(get<AppConfig>(TYPES.Config).auth.secret),
      ),
  );
  bind(
    AggregateItemsHandler,
    (get) =>
      new AggregateItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.ItemStore),
        get(TYPES.Clock),
        get(TYPES.QueryLimits),
        responseMaxBytes(get),
      ),
  );
  bind(
    GetItemHandler,
    (get) =>
      new GetItemHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.ItemStore),
        get(TYPES.Clock),
        get(TYPES.QueryLimits),
        responseMaxBytes(get),
      ),
  );
  bind(
    CreateItemsHandler,
    (get) =>
      new CreateItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(WriteRules),
        get(TYPES.ItemStore),
        get(ReadBack),
        get(TYPES.Clock),
        batchMax(get),
      ),
  );
  bind(
    UpdateItemsHandler,
    (get) =>
      new UpdateItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(WriteRules),
        get(TYPES.ItemStore),
        get(ReadBack),
        get(TYPES.Clock),
        batchMax(get),
      ),
  );
  bind(
    DeleteItemsHandler,
    (get) =>
      new DeleteItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(WriteRules),
        get(TYPES.ItemStore),
        get(TYPES.Clock),
        batchMax(get),
      ),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const listItems = get(ListItemsHandler);
    const aggregateItems = get(AggregateItemsHandler);
    const getItem = get(GetItemHandler);
    const createItems = get(CreateItemsHandler);
    const updateItems = get(UpdateItemsHandler);
    const deleteItems = get(DeleteItemsHandler);
    return {
      register(router, { readBody, authenticated, respond }) {
        const list = async (ctx: HttpContext, caller: Accountability, query: RawItemQuery) => {
          if (asksForAggregate(query)) {
            const groups = await aggregateItems.execute(caller, {
              collection: ctx.params.collection!,
              query,
            });
            respond.sendJson(ctx, groups);
            return;
          }
          const result = await listItems.execute(caller, { collection: ctx.params.collection!, query });
          respond.sendJson(ctx, result.json, listMetaOf(result));
        };
        router.get(
          '/items/:collection',
          authenticated((ctx, caller) => list(ctx, caller, itemQuery(ctx))),
        );
        router.register(
          '/items/:collection',
          ['SEARCH'],
          authenticated(async (ctx, caller) =>
            list(ctx, caller, searchQuery(ctx, await readBody(ctx, searchBody))),
          ),
        );
        router.get(
          '/items/:collection/:key',
          authenticated(async (ctx, caller) => {
            const item = await getItem.execute(caller, {
              collection: ctx.params.collection!,
              id: ctx.params.key!,
              query: itemQuery(ctx),
            });
            respond.sendJson(ctx, item);
          }),
        );
        // The body is read before the query string, so a malformed body is the error named first.
        const write = (
          execute: (ctx: HttpContext, caller: Accountability, body: unknown) => Promise<WriteResult>,
        ) =>
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, anyJson);
            respond.written(ctx, await execute(ctx, caller, body));
          });
        router.post(
          '/items/:collection',
          write((ctx, caller, body) =>
            createItems.execute(caller, { collection: ctx.params.collection!, body, query: itemQuery(ctx) }),
          ),
        );
        router.patch(
          '/items/:collection',
          write((ctx, caller, body) =>
            updateItems.execute(caller, { collection: ctx.params.collection!, body, query: itemQuery(ctx) }),
          ),
        );
        router.patch(
          '/items/:collection/:key',
          write((ctx, caller, body) =>
            updateItems.execute(caller, {
              collection: ctx.params.collection!,
              key: ctx.params.key!,
              body,
              query: itemQuery(ctx),
            }),
          ),
        );
        router.delete(
          '/items/:collection',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, anyJson);
            await deleteItems.execute(caller, { collection: ctx.params.collection!, body });
            respond.noContent(ctx);
          }),
        );
        router.delete(
          '/items/:collection/:key',
          authenticated(async (ctx, caller) => {
            await deleteItems.execute(caller, {
              collection: ctx.params.collection!,
              key: ctx.params.key!,
            });
            respond.noContent(ctx);
          }),
        );
      },
      api: itemsApi,
    };
  });
});
