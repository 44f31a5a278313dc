import type { ApiDescription } from '../../application/server/describe-api.ts';
import type { Authenticated } from './authenticated.ts';
import type { JsonBodyReader } from './json-body.ts';
import type { OpenApiDocument } from './openapi/openapi-types.ts';
import type { Respond } from './respond.ts';

/** The adapter's shared request and response tools, handed to every area's routes. */
export type RouteKit = {
  readBody: JsonBodyReader;
  authenticated: Authenticated;
  respond: Respond;
  /**
   * The OpenAPI document of every area, as the caller `description` was made for may use it; `server` is
   * the address the document is served from.
   */
  openApiDocument(description: ApiDescription, server: string): OpenApiDocument;
};
