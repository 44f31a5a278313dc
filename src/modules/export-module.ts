import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import { EXPORT_MEDIA_TYPES, exportFileName } from '../adapters/export/export-file-name.ts';
import { writeExport } from '../adapters/export/write-export.ts';
import { ExportQuota } from '../adapters/http/export-quota.ts';
import { exportRoute } from '../adapters/http/export-route.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { ExportItemsHandler } from '../application/items/export-items.ts';
import { ListItemsHandler } from '../application/items/list-items.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/**
 * Export (docs/api.md §13): `?export=csv|json|ndjson` on GET /items/:collection, and the handler the CLI's
 * `datagate export` runs. Loaded before the items module, whose list would otherwise answer first.
 */
export const exportModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(ExportItemsHandler, (get) => {
    const config = get<AppConfig>(TYPES.Config);
    return new ExportItemsHandler(
      get(TYPES.SchemaCatalog),
      get(ListItemsHandler),
      get(TYPES.ItemStore),
      get(TYPES.QueryLimits),
      {
        pageRows: config.export.pageRows,
        pageMaxBytes: config.export.pageMaxBytes,
      },
    );
  });
  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const handler = get(ExportItemsHandler);
    const quota = new ExportQuota(get<AppConfig>(TYPES.Config).export.concurrentPerUser);
    return {
      register(router, { authenticated }) {
        router.get(
          '/items/:collection',
          exportRoute({
            handler,
            authenticated,
            quota,
            files: {
              write: writeExport,
              mediaType: (format) => EXPORT_MEDIA_TYPES[format],
              fileName: exportFileName,
            },
            clock: get(TYPES.Clock),
            logger: get<Logger>(TYPES.Logger),
          }),
        );
      },
    };
  });
});
