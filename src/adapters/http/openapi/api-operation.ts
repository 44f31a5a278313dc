import type { ZodObject, ZodType } from 'zod';
import type { ApiDescription } from '../../../application/server/describe-api.ts';
import type { HttpSettings } from '../http-settings.ts';
import type { ErrorStatus } from './error-responses.ts';
import type { HttpMethod } from './openapi-types.ts';

/**
 * Who finds an operation in the document: anyone, a caller with a user (token), or an admin. The handler
 * checks the same (requireUser, requireAdmin); this only keeps the document to what the caller may use.
 */
export type Audience = 'anyone' | 'user' | 'admin';

/** One answer of an operation. */
export type Answer = {
  status: number;
  description: string;
  /** The body's schema; none for 204. */
  body?: ZodType;
  /**
   * How the body goes out: `data` (the default) as the response profile sends 2xx bodies, `list` with the
   * counts `meta` asks for where the profile puts them, `bare` as is in every profile, `text` as text/plain,
   * `events` as text/event-stream (the body then describes one event's `data`), `binary` as bytes of any
   * type (a file's).
   */
  form?: 'data' | 'list' | 'bare' | 'text' | 'events' | 'binary';
};

/**
 * One operation as its area module declares it next to its route: the zod schemas here are the ones the
 * route validates with (bodies) and answers in (responses), so the document cannot drift from the code.
 */
export type ApiOperation = {
  method: HttpMethod;
  /** The path, written as the route is (`/users/:id`); the document writes `/users/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  audience: Audience;
  /** The operation ignores tokens (logging in, the health check). */
  tokenBlind?: boolean;
  /** The path's parameters by name, with what they hold. */
  pathParameters?: Record<string, ZodType>;
  /** The query parameters it reads, one per key. */
  query?: ZodObject;
  body?: ZodType;
  answers: Answer[];
  /** Its error answers by status; every operation also has `default` for the rest (docs/api.md §2). */
  errors: ErrorStatus[];
};

export type ApiTag = { name: string; description: string };

/** What one area adds to the document. */
export type ApiPart = {
  tags: ApiTag[];
  operations: ApiOperation[];
  /** Schemas written once under `components.schemas` by these names and referred to wherever used. */
  schemas?: Record<string, ZodType>;
};

/** What a part is written for: what the caller may do with the live schema, and the response profile. */
export type ApiContext = { description: ApiDescription; profile: HttpSettings['profile'] };
