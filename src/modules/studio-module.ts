import { join } from 'node:path';
import { ContainerModule } from 'inversify';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { StudioFiles } from '../adapters/http/studio/studio-files.ts';
import { registerStudioRoutes } from '../adapters/http/studio/studio-routes.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/**
 * /studio: the web app (studio/, built to dist/studio/ by `make build`). It calls the public API as the
 * logged-in user, so the server gives it files and nothing else.
 */
export const studioModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const config = get<AppConfig>(TYPES.Config);
    const files = new StudioFiles(join(PACKAGE_ROOT, 'dist', 'studio'), config.http.profile);
    return {
      register(router) {
        if (config.studio.enabled) registerStudioRoutes(router, files);
      },
    };
  });
});
