import type { Router } from '@koa/router';
import type { Container } from 'inversify';
import type { HttpRoutes } from '../../../src/adapters/http/http-routes.ts';
import type { HttpState } from '../../../src/adapters/http/http-state.ts';
import type { OpenApiDocument } from '../../../src/adapters/http/openapi/openapi-types.ts';
import type { RouteKit } from '../../../src/adapters/http/route-kit.ts';
import { TYPES } from '../../../src/container.ts';
import { CREATABLE_FIELD_TYPES } from '../../../src/domain/schema/field-type.ts';
import { USER_STATUSES } from '../../../src/domain/user.ts';
import type { FuzzSchema } from './schema-values.ts';

/** One operation to fuzz: a route of the server, with what its parameters and body look like. */
export type FuzzOperation = {
  method: string;
  /** The route as registered, `/items/:collection/:key`. */
  route: string;
  /** Query parameters the operation reads. */
  query: ReadonlyArray<{ name: string; schema: FuzzSchema }>;
  body: FuzzSchema | undefined;
  /** Where the description comes from: the OpenAPI document, or the hand-written list below. */
  source: 'document' | 'hand-written';
};

/** Every route the composed app registers, read by registering each area's routes on a recorder. */
export function registeredRoutes(container: Container): Array<{ method: string; route: string }> {
  const routes: Array<{ method: string; route: string }> = [];
  const record =
    (...methods: string[]) =>
    (route: string) => {
      for (const method of methods) routes.push({ method, route });
    };
  const recorder = {
    get: record('GET'),
    post: record('POST'),
    patch: record('PATCH'),
    put: record('PUT'),
    delete: record('DELETE'),
    register: (route: string, methods: string[]) => record(...methods)(route),
  };
  const kit = { authenticated: (handler: unknown) => handler } as unknown as RouteKit;
  for (const area of container.getAll<HttpRoutes>(TYPES.HttpRoutes)) {
    area.register(recorder as unknown as Router<HttpState>, kit);
  }
  return routes;
}

/**
 * Routes that answer a valid request with a stream that never ends (Server-Sent Events): a fuzzer run would
 * wait on it forever. Their bad input is tested by hand in tests/http/item-events-sse.test.ts.
 */
const STREAMING = new Set(['GET /items/:collection/events']);

const routePattern = (route: string) => new RegExp(`^${route.replace(/:[a-z]+/g, '[^/]+')}$`);

/**
 * The operations of the document matched to the routes they call, and, for every route the document
 * leaves out, the hand-written description (a route without one is fuzzed without query or body).
 */
export function fuzzOperations(
  document: OpenApiDocument,
  routes: ReadonlyArray<{ method: string; route: string }>,
): { operations: FuzzOperation[]; missing: string[] } {
  const operations: FuzzOperation[] = [];
  const covered = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    const concrete = path.replace(/\{[^}]+\}/g, 'x');
    for (const [verb, operation] of Object.entries(item)) {
      if (verb === 'parameters' || typeof operation !== 'object' || !('responses' in operation)) continue;
      const method = verb.toUpperCase();
      const route = routes.find(
        (candidate) => candidate.method === method && routePattern(candidate.route).test(concrete),
      );
      if (!route) throw new Error(`the document describes ${method} ${path}, which no route serves`);
      // The hand-written description wins: it draws role ids, e-mails and names from the fixture's pools.
      if (HAND_WRITTEN[`${method} ${route.route}`] || STREAMING.has(`${method} ${route.route}`)) continue;
      covered.add(`${method} ${route.route}`);
      const query = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map(({ name, schema }) => ({ name, schema }));
      const body = operation.requestBody?.content['application/json']?.schema;
      if (!operations.some((known) => known.method === method && known.route === route.route)) {
        operations.push({ method, route: route.route, query, body, source: 'document' });
      }
    }
  }
  const missing: string[] = [];
  for (const { method, route } of routes) {
    const name = `${method} ${route}`;
    if (
      STREAMING.has(name) ||
      covered.has(name) ||
      operations.some((known) => known.method === method && known.route === route)
    )
      continue;
    missing.push(name);
    const written = HAND_WRITTEN[name] ?? {};
    operations.push({
      method,
      route,
      query: written.query ?? [],
      body: written.body,
      source: 'hand-written',
    });
  }
  return { operations, missing };
}

const text: FuzzSchema = { type: 'string' };
const nullableText: FuzzSchema = { type: ['string', 'null'] };
const roleId: FuzzSchema = { oneOf: [{ type: 'null' }, { type: 'string', 'x-pool': 'roleId' }] };
const jsonObject: FuzzSchema = { type: ['object', 'null'] };

/** A filter as permissions hold them: the fixture's field names with an operator and a value. */
const ruleFilter: FuzzSchema = {
  type: ['object', 'null'],
  properties: {
    is_deleted: { type: 'object', properties: { _eq: { type: 'boolean' } } },
    crates: {
      type: 'object',
      properties: { _gte: { type: 'integer' }, _in: { type: 'array', items: { type: 'integer' } } },
    },
    user_created: { type: 'object', properties: { _eq: { enum: ['$CURRENT_USER', '$CURRENT_ROLE'] } } },
    _and: {
      type: 'array',
      items: { type: 'object', properties: { code: { type: 'object', properties: { _contains: text } } } },
    },
  },
};

const user: FuzzSchema = {
  type: 'object',
  required: ['email', 'password', 'role'],
  properties: {
    email: { type: 'string', 'x-pool': 'email' },
    password: { type: 'string', 'x-pool': 'password' },
    role: roleId,
    status: { enum: [...USER_STATUSES] },
    first_name: nullableText,
    last_name: nullableText,
    token: { type: ['string', 'null'], minLength: 32 },
  },
};

const role: FuzzSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 100 },
    description: nullableText,
    admin_access: { type: 'boolean' },
  },
};

const permission: FuzzSchema = {
  type: 'object',
  required: ['role', 'collection', 'action'],
  properties: {
    role: roleId,
    collection: { type: 'string', 'x-pool': 'collection' },
    action: { enum: ['create', 'read', 'update', 'delete', 'share', ''] },
    permissions: { oneOf: [ruleFilter, { 'x-filter': true }] },
    validation: { oneOf: [ruleFilter, { 'x-filter': true }] },
    presets: jsonObject,
    fields: { type: ['array', 'null'], items: { type: 'string', 'x-pool': 'field' } },
  },
};

const newField: FuzzSchema = {
  type: 'object',
  required: ['field', 'type'],
  properties: {
    field: { type: 'string', maxLength: 63 },
    type: { enum: [...CREATABLE_FIELD_TYPES, 'unknown', 'alias'] },
    schema: {
      type: 'object',
      properties: {
        is_primary_key: { type: 'boolean' },
        is_nullable: { type: 'boolean' },
        is_unique: { type: 'boolean' },
        default_value: { type: ['string', 'number', 'boolean', 'null'] },
        max_length: { type: 'integer', minimum: 1, maximum: 10_485_760 },
      },
    },
  },
};

/** SEARCH's body: the list parameters of GET as JSON (docs/api.md §4). */
const searchBody: FuzzSchema = {
  type: 'object',
  required: ['query'],
  properties: {
    query: {
      type: 'object',
      properties: {
        fields: { type: ['array', 'string'], items: { type: 'string', 'x-pool': 'field' } },
        filter: { 'x-filter': true },
        sort: { type: ['array', 'string'], items: { type: 'string', 'x-pool': 'field' } },
        limit: { type: 'integer', minimum: -1, maximum: 1000 },
        offset: { type: 'integer', minimum: 0 },
        page: { type: 'integer', minimum: 1 },
        search: { type: 'string', maxLength: 256 },
        meta: { enum: ['*', 'total_count', 'filter_count', 'nope'] },
        deep: { type: 'object' },
        aggregate: { type: 'object' },
      },
    },
  },
};

/**
 * The operations GET /server/specs/oas does not describe (SEARCH), and those whose values are better drawn
 * from the fixture (role ids, e-mails, collection and field names) than from their schema: their bodies
 * as the modules' wire shapes (src/modules/*-module.ts) and the domain rules say.
 */
const HAND_WRITTEN: Record<string, { body?: FuzzSchema; query?: FuzzOperation['query'] }> = {
  'SEARCH /items/:collection': { body: searchBody },
  'POST /users': { body: user },
  'PATCH /users/:id': { body: { ...user, required: [] } },
  'POST /roles': { body: role },
  'PATCH /roles/:id': { body: { ...role, required: [] } },
  'POST /permissions': { body: permission },
  'PATCH /permissions/:id': { body: { ...permission, required: [] } },
  'POST /collections': {
    body: {
      type: 'object',
      required: ['collection', 'fields'],
      properties: {
        collection: { type: 'string', 'x-pool': 'collection' },
        fields: { type: 'array', maxItems: 4, items: newField },
      },
    },
  },
  'POST /fields/:collection': { body: newField },
};
