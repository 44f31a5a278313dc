import type { Router } from '@koa/router';
import qs from 'qs';
import { z } from 'zod';
import type { Accountability } from '../../../domain/accountability.ts';
import { invalidQuery } from '../../../domain/query/invalid-query.ts';
import type { RawItemQuery } from '../../../domain/query/parse-item-query.ts';
import type { HttpContext, HttpState } from '../http-state.ts';
import type { RouteKit } from './route-kit.ts';

/**
 * Bracket forms (`filter[temperature][_gt]=10`) need a nested parser; the limits keep a hostile query
 * string from building huge objects. Depth stays above the filter's own nesting limit (API.md §4a), so
 * the domain gives the precise INVALID_QUERY rather than qs silently flattening the rest.
 */
export function itemQuery(ctx: HttpContext): RawItemQuery {
  return qs.parse(ctx.querystring, {
    depth: 24,
    arrayLimit: 500,
    parameterLimit: 1000,
    allowPrototypes: false,
    plainObjects: true,
    decoder: strictDecoder,
  }) as RawItemQuery;
}

/**
 * qs keeps a malformed escape (`%FF`, `%C3%28`, a bare `%`) as literal text, which would answer a question
 * nobody asked (a search for the text "%FF"); such a query string is refused, as a body that is not UTF-8 is.
 */
function strictDecoder(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    throw invalidQuery('The query string is not valid percent-encoded UTF-8.', { reason: 'INVALID_VALUE' });
  }
}

/** Item bodies are schemaless here: the handlers check them against the collection's columns. */
const anyJson = z.unknown();

/**
 * Directus's SEARCH (`withSearch` in @directus/sdk): the list parameters of GET as JSON in the body, for
 * queries that would not fit in a URL. Values are those of the query string (API.md §4), JSON-typed.
 */
const searchBody = z.strictObject({ query: z.record(z.string(), z.unknown()) });

/** The SDK sends `fields: []` when none were asked for; Directus reads that as the default, `*`. */
function searchQuery({ query }: z.output<typeof searchBody>): RawItemQuery {
  const { fields, ...rest } = query;
  return Array.isArray(fields) && fields.length === 0 ? rest : query;
}

export function registerItemRoutes(
  router: Router<HttpState>,
  { handlers, authenticated, respond, readBody }: RouteKit,
): void {
  const list = async (ctx: HttpContext, caller: Accountability, query: RawItemQuery) => {
    const result = await handlers.listItems.execute(caller, { collection: ctx.params.collection!, query });
    respond.sendJson(ctx, result.json, { total_count: result.totalCount, filter_count: result.filterCount });
  };
  router.get(
    '/items/:collection',
    authenticated((ctx, caller) => list(ctx, caller, itemQuery(ctx))),
  );
  router.register(
    '/items/:collection',
    ['SEARCH'],
    authenticated(async (ctx, caller) => list(ctx, caller, searchQuery(await readBody(ctx, searchBody)))),
  );
  router.get(
    '/items/:collection/:key',
    authenticated(async (ctx, caller) => {
      const item = await handlers.getItem.execute(caller, {
        collection: ctx.params.collection!,
        id: ctx.params.key!,
        query: itemQuery(ctx),
      });
      respond.sendJson(ctx, item);
    }),
  );
  router.post(
    '/items/:collection',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, anyJson);
      const result = await handlers.createItems.execute(caller, {
        collection: ctx.params.collection!,
        body,
        query: itemQuery(ctx),
      });
      respond.written(ctx, result);
    }),
  );
  router.patch(
    '/items/:collection',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, anyJson);
      const result = await handlers.updateItems.execute(caller, {
        collection: ctx.params.collection!,
        body,
        query: itemQuery(ctx),
      });
      respond.written(ctx, result);
    }),
  );
  router.patch(
    '/items/:collection/:key',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, anyJson);
      const result = await handlers.updateItems.execute(caller, {
        collection: ctx.params.collection!,
        key: ctx.params.key!,
        body,
        query: itemQuery(ctx),
      });
      respond.written(ctx, result);
    }),
  );
  router.delete(
    '/items/:collection',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, anyJson);
      await handlers.deleteItems.execute(caller, { collection: ctx.params.collection!, body });
      respond.noContent(ctx);
    }),
  );
  router.delete(
    '/items/:collection/:key',
    authenticated(async (ctx, caller) => {
      await handlers.deleteItems.execute(caller, {
        collection: ctx.params.collection!,
        key: ctx.params.key!,
      });
      respond.noContent(ctx);
    }),
  );
}
