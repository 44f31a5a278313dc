import type { Router } from '@koa/router';
import type { HttpState } from '../http-state.ts';
import { explorerAssets } from '../openapi/explorer-assets.ts';
import { EXPLORER_HTML, EXPLORER_SCRIPT } from '../openapi/explorer-page.ts';

/**
 * /docs: the API explorer. Every file is a route of its own, so any other /docs path is a plain 404 and
 * nothing outside the list can be reached (no directory listing, no path traversal).
 */
export function registerDocsRoutes(router: Router<HttpState>): void {
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = EXPLORER_HTML;
  });
  router.get('/docs/explorer.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = EXPLORER_SCRIPT;
  });
  for (const asset of explorerAssets()) {
    router.get(`/docs/${asset.name}`, async (ctx) => {
      ctx.type = asset.type;
      ctx.body = await asset.load();
    });
  }
}
