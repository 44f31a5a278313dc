import type { ApiDescription } from '../../../application/server/describe-api.ts';
import type { HttpSettings } from '../http-app-dependencies.ts';
import { componentNames } from './component-names.ts';
import { ERROR_SCHEMA, errorResponses } from './error-responses.ts';
import { fixedApi } from './fixed-paths.ts';
import { collectionApi } from './item-paths.ts';
import { itemQueryParameters } from './item-query-parameters.ts';
import type { OpenApiDocument, SecurityScheme } from './openapi-types.ts';
import { profileShapes } from './profile-shapes.ts';

export type DocumentSettings = Pick<HttpSettings, 'profile' | 'allowQueryToken'>;

const DESCRIPTION = [
  'The operations, collections and fields here are the ones the caller of this document may use.',
  'Log in with `POST /auth/login`, then send the access token as `Authorization: Bearer <token>`',
  'and fetch the document again to see what that user may do (the explorer at /docs does so on "Authorize").',
].join(' ');

/** GET /server/specs/oas: the OpenAPI 3.1 document of what the caller may do. */
export function openApiDocument(description: ApiDescription, settings: DocumentSettings): OpenApiDocument {
  const shapes = profileShapes(settings.profile);
  const fixed = fixedApi(shapes);
  const schemes = securitySchemes(settings.allowQueryToken);
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 'datagate', version: description.version, description: DESCRIPTION },
    tags: [{ name: 'auth' }, { name: 'users' }, { name: 'server' }],
    paths: { ...fixed.paths },
    components: {
      schemas: { Error: ERROR_SCHEMA, ...fixed.schemas },
      parameters: itemQueryParameters(description.limits),
      responses: errorResponses(),
      securitySchemes: schemes,
    },
    // `{}` first: every operation may be called without a token, as the public role.
    security: [{}, ...Object.keys(schemes).map((name) => ({ [name]: [] }))],
  };
  const names = componentNames(description.collections.map((collection) => collection.name));
  for (const collection of description.collections) {
    const api = collectionApi(collection, names.get(collection.name)!, shapes, description.limits.batchMax);
    document.tags.push({ name: collection.name });
    Object.assign(document.paths, api.paths);
    Object.assign(document.components.schemas, api.schemas);
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
