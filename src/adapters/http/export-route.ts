import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { ExportFormat, ExportItemsHandler, ItemExport } from '../../application/items/export-items.ts';
import type { Clock } from '../../application/ports/clock.ts';
import type { Authenticated } from './authenticated.ts';
import type { ExportQuota } from './export-quota.ts';
import type { RouteContext, RouteMiddleware } from './http-state.ts';
import { itemQuery } from './item-query-string.ts';

/** How an export becomes a file: the export adapter's, handed in by the module. */
export type ExportFiles = {
  write(itemExport: ItemExport, out: Writable): Promise<number>;
  mediaType(format: ExportFormat): string;
  fileName(collection: string, format: ExportFormat, at: Date): string;
};

export type ExportRouteDependencies = {
  readonly handler: ExportItemsHandler;
  readonly authenticated: Authenticated;
  readonly quota: ExportQuota;
  readonly files: ExportFiles;
  readonly clock: Clock;
  readonly logger: Logger;
};

/**
 * GET /items/:collection?export= (docs/api.md §13): the list as a file to download, streamed. Registered
 * ahead of the list on the same path, it passes every request without `export` on to it.
 *
 * Everything that can refuse the request — the query, the rules, the quota, the first page — does so
 * before the status line, as an ordinary JSON error. Past that, a failure cuts the connection without
 * the end of the chunked body, so that no client takes a truncated file for a whole one.
 */
export function exportRoute({
  handler,
  authenticated,
  quota,
  files,
  clock,
  logger,
}: ExportRouteDependencies): RouteMiddleware {
  const run = authenticated(async (ctx, caller) => {
    const release = quota.take(caller.user ?? `address ${ctx.ip}`);
    try {
      const collection = ctx.params.collection!;
      const itemExport = await handler.open(caller, { collection, query: itemQuery(ctx) });
      try {
        const { format } = itemExport;
        const name = files.fileName(itemExport.collection, format, clock.now());
        ctx.status = 200;
        ctx.set('Content-Type', files.mediaType(format));
        ctx.set('Content-Disposition', `attachment; filename="${name}"`);
        ctx.respond = false;
        const { res } = ctx;
        if (ctx.method === 'HEAD') {
          res.end();
          return;
        }
        try {
          await files.write(itemExport, res);
          res.end();
        } catch (error) {
          res.destroy();
          logger.error({ err: error, requestId: ctx.state.requestId, collection }, 'export cut off mid-file');
        }
      } finally {
        // Its snapshot holds a connection until then (docs/decisions/0034), a client gone early included.
        await itemExport.close();
      }
    } finally {
      release();
    }
  });
  return (ctx, next) => (asksForExport(ctx) ? run(ctx, next) : next());
}

/** A letter of `export` percent-encoded (`%65xport=csv` names it too). */
const ENCODED_LETTER_OF_EXPORT = /%(?:65|6f|7[0248])/i;

/**
 * A query that cannot be read is left to the list, which refuses it in its own order (401 before 400). Read
 * only when it could name `export`: most lists never do, and are parsed once, by the list.
 */
function asksForExport(ctx: RouteContext): boolean {
  const { querystring } = ctx;
  if (!querystring.includes('export') && !ENCODED_LETTER_OF_EXPORT.test(querystring)) return false;
  try {
    return Object.hasOwn(itemQuery(ctx), 'export');
  } catch {
    return false;
  }
}
