import type { ApiDescription } from '../../../application/server/describe-api.ts';
import type { HttpSettings } from '../http-settings.ts';
import { ERROR_SCHEMA, errorResponses } from './error-responses.ts';
import { itemQueryParameters } from './item-query-parameters.ts';
import type { OpenApiContext, OpenApiPart } from './openapi-part.ts';
import type { OpenApiDocument, SecurityScheme } from './openapi-types.ts';
import { profileShapes } from './profile-shapes.ts';

export type DocumentSettings = Pick<HttpSettings, 'profile' | 'allowQueryToken'>;

/** One area's part of the document, written for the caller of the description. */
export type OpenApiPartOf = (context: OpenApiContext) => OpenApiPart;

const DESCRIPTION = [
  'The operations, collections and fields here are the ones the caller of this document may use.',
  'Log in with `POST /auth/login`, then send the access token as `Authorization: Bearer <token>`',
  'and fetch the document again to see what that user may do (the explorer at /docs does so on "Authorize").',
].join(' ');

/** GET /server/specs/oas: the OpenAPI 3.1 document of what the caller may do, the areas' parts in order. */
export function openApiDocument(
  description: ApiDescription,
  settings: DocumentSettings,
  parts: ReadonlyArray<OpenApiPartOf>,
): OpenApiDocument {
  const context: OpenApiContext = { description, shapes: profileShapes(settings.profile) };
  const schemes = securitySchemes(settings.allowQueryToken);
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 'datagate', version: description.version, description: DESCRIPTION },
    tags: [],
    paths: {},
    components: {
      schemas: { Error: ERROR_SCHEMA },
      parameters: itemQueryParameters(description.limits),
      responses: errorResponses(),
      securitySchemes: schemes,
    },
    // `{}` first: every operation may be called without a token, as the public role.
    security: [{}, ...Object.keys(schemes).map((name) => ({ [name]: [] }))],
  };
  for (const part of parts) {
    const { tags = [], paths, schemas = {} } = part(context);
    document.tags.push(...tags.map((name) => ({ name })));
    Object.assign(document.paths, paths);
    Object.assign(document.components.schemas, schemas);
  }
  return document;
}

function securitySchemes(allowQueryToken: boolean): Record<string, SecurityScheme> {
  const bearer: SecurityScheme = {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token from /auth/login, or a static token.',
  };
  if (!allowQueryToken) return { bearer };
  return {
    bearer,
    access_token: {
      type: 'apiKey',
      in: 'query',
      name: 'access_token',
      description: 'The same token in the query string, for clients that cannot set headers.',
    },
  };
}
