import type { Router } from '@koa/router';
import type { HttpState } from '../http-state.ts';
import type { StudioFiles } from './studio-files.ts';

/**
 * The page runs no inline script or style and calls no other origin: `default-src 'self'` is all it needs
 * (no `unsafe-eval`, no `unsafe-inline`). The other directives only narrow what `default-src` leaves open.
 */
const PAGE_POLICY =
  "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

/** Hashed names change with their content, so a browser may keep them for good. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * /studio and every path below it answer the page (the app routes in the browser, so a reload or a shared
 * link works), except /studio/assets/<name>, which answers that built file or 404. Nothing is written
 * when the studio has not been built: the paths answer 404, as a disabled studio does.
 */
export function registerStudioRoutes(router: Router<HttpState>, files: StudioFiles): void {
  router.get('/studio/assets/:name', async (ctx) => {
    const file = await files.asset(ctx.params.name ?? '');
    if (!file) return;
    ctx.set('Cache-Control', ASSET_CACHE);
    ctx.type = file.type;
    ctx.body = file.body;
  });
  const page: Parameters<typeof router.get>[1] = async (ctx) => {
    const body = await files.index();
    if (!body) return;
    // Revalidated on every load, so a new build's asset names reach browsers at once.
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };
  router.get('/studio', page);
  router.get('/studio/*path', page);
}
