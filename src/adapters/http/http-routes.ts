import type { Router } from '@koa/router';
import type { HttpState } from './http-state.ts';
import type { ApiContext, ApiPart } from './openapi/api-operation.ts';
import type { RouteKit } from './route-kit.ts';

/**
 * One area's HTTP face: its routes and their description in the OpenAPI document, written from the same
 * zod schemas. Each area module binds one; the app registers them, and the document lists them, in the
 * order the modules are loaded.
 */
export type HttpRoutes = {
  register(router: Router<HttpState>, kit: RouteKit): void;
  /** Absent where the document describes none of the area's operations. */
  api?: (context: ApiContext) => ApiPart;
};
