import { type ZodType, z } from 'zod';
import type { ApiDescription } from '../../../application/server/describe-api.ts';
import type { HttpSettings } from '../http-settings.ts';
import type { ApiContext, ApiOperation, ApiPart, Audience } from './api-operation.ts';
import { DocumentSchemas } from './document-schemas.ts';
import { ErrorResponses } from './error-responses.ts';
import type { OpenApiDocument, Operation, Parameter, Response, SecurityScheme } from './openapi-types.ts';
import { shapedAnswer } from './profile-shapes.ts';

export type DocumentSettings = Pick<HttpSettings, 'profile' | 'allowQueryToken'>;

/** One area's part of the document, written for the caller of the description. */
export type ApiPartOf = (context: ApiContext) => ApiPart;

const DESCRIPTION = [
  'The operations, collections and fields here are the ones the caller of this document may use.',
  'Log in with `POST /auth/login`, then send the access token as `Authorization: Bearer <token>`',
  'and fetch the document again to see what that user may do (the explorer at /docs does so on "Authorize").',
].join(' ');

/**
 * GET /server/specs/oas: the OpenAPI 3.1 document of what the caller may do, the areas' parts in order,
 * every schema in it written by zod from the schemas the routes use. `server` is the address the
 * document was fetched from.
 */
export function openApiDocument(
  description: ApiDescription,
  settings: DocumentSettings,
  parts: ReadonlyArray<ApiPartOf>,
  server: string,
): OpenApiDocument {
  const context: ApiContext = { description, profile: settings.profile };
  const written = parts.map((part) => part(context));
  const schemas = new DocumentSchemas();
  // Every name first: a part may use a schema another one names.
  for (const part of written) {
    for (const [name, schema] of Object.entries(part.schemas ?? {})) schemas.name(name, schema);
  }
  const errors = new ErrorResponses(schemas);
  const writer = new OperationWriter(schemas, errors, settings.profile);
  const tags = new Map<string, string>();
  const paths: OpenApiDocument['paths'] = {};
  for (const part of written) {
    const visible = part.operations.filter((operation) => mayUse(description.caller, operation.audience));
    for (const operation of visible) {
      const path = documentPath(operation.path);
      paths[path] = { ...paths[path], [operation.method]: writer.write(operation) };
    }
    // Only the tags of operations shown; the first description of a name wins (a table may be named `auth`).
    for (const tag of part.tags) {
      if (!tags.has(tag.name) && visible.some((operation) => operation.tag === tag.name))
        tags.set(tag.name, tag.description);
    }
  }
  const securitySchemes = securitySchemesFor(settings.allowQueryToken);
  return {
    openapi: '3.1.0',
    info: {
      title: 'datagate',
      version: description.version,
      description: DESCRIPTION,
      license: { name: description.license, identifier: description.license },
      'x-realtime': description.realtime,
    },
    servers: [{ url: server, description: 'This server.' }],
    tags: [...tags].map(([name, about]) => ({ name, description: about })),
    paths,
    components: {
      schemas: schemas.components,
      responses: errors.components(),
      securitySchemes,
    },
    // `{}` first: every operation may be called without a token, as the public role.
    security: [{}, ...Object.keys(securitySchemes).map((name) => ({ [name]: [] }))],
  };
}

function mayUse(caller: ApiDescription['caller'], audience: Audience): boolean {
  if (audience === 'admin') return caller.admin;
  if (audience === 'user') return caller.user;
  return true;
}

/** A path parameter that names nothing in particular. */
const TEXT = z.string();

/** `/users/:id` → `/users/{id}`. */
const documentPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

const parameterNames = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]!);

class OperationWriter {
  constructor(
    private readonly schemas: DocumentSchemas,
    private readonly errors: ErrorResponses,
    private readonly profile: HttpSettings['profile'],
  ) {}

  write(operation: ApiOperation): Operation {
    const parameters = [
      ...parameterNames(operation.path).map((name) =>
        this.parameter(name, 'path', operation.pathParameters?.[name] ?? TEXT),
      ),
      ...Object.entries(operation.query?.shape ?? {}).map(([name, schema]) =>
        this.parameter(name, 'query', schema as ZodType),
      ),
    ];
    const responses: Operation['responses'] = {};
    for (const answer of operation.answers) {
      responses[answer.status] = this.answer(answer);
    }
    return {
      operationId: operation.operationId,
      summary: operation.summary,
      ...(operation.description ? { description: operation.description } : {}),
      tags: [operation.tag],
      ...(operation.tokenBlind ? { security: [] } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(operation.body
        ? {
            requestBody: {
              required: !operation.body.safeParse(undefined).success,
              content: { 'application/json': { schema: this.schemas.write(operation.body, 'input') } },
            },
          }
        : {}),
      responses: { ...responses, ...this.errors.of(operation.errors) },
    };
  }

  private parameter(name: string, place: 'path' | 'query', schema: ZodType): Parameter {
    const { description, ...written } = this.schemas.write(schema, 'input');
    return {
      name,
      in: place,
      ...(description ? { description } : {}),
      ...(place === 'path' || !schema.safeParse(undefined).success ? { required: true } : {}),
      schema: written,
    };
  }

  private answer(answer: ApiOperation['answers'][number]): Response {
    if (!answer.body) return { description: answer.description };
    const { body, headers } = shapedAnswer(this.profile, answer, answer.body);
    const mediaType = MEDIA_TYPES[answer.form ?? 'data'];
    return {
      description: answer.description,
      ...(headers ? { headers: this.schemas.headers(headers) } : {}),
      content: { [mediaType]: { schema: this.schemas.write(body, 'output') } },
    };
  }
}

const MEDIA_TYPES: Record<NonNullable<ApiOperation['answers'][number]['form']>, string> = {
  data: 'application/json',
  list: 'application/json',
  bare: 'application/json',
  text: 'text/plain',
  events: 'text/event-stream',
  binary: 'application/octet-stream',
};

function securitySchemesFor(allowQueryToken: boolean): Record<string, SecurityScheme> {
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
